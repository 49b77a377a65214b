import { ZodError, z } from "zod";

/**
 * zod for every schema of the app: imported from here, never from "zod" (biome.json), so this
 * runs before any schema is built. zod 4 compiles an object's parser with `new Function`, and
 * probes for it when an object schema is first built; our Content Security Policy refuses it
 * and the browser reports the refusal on every page that loads a schema. Without the JIT it
 * parses the same (docs/decisions/0250-zod-without-its-jit-and-shares-land-on-their-item.md).
 */
z.config({ jitless: true });

export { ZodError, z };
