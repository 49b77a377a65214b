// The scheduler thread's entry. Node 20 does not apply tsx's --import hooks
// to a worker's own entry, so the thread registers tsx itself, then loads the
// TypeScript worker (with the project's path aliases).
import { register } from "tsx/esm/api";

register();
await import("./scheduler-worker.ts");
