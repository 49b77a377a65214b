import fs from "node:fs";
import { Session } from "node:inspector/promises";
import path from "node:path";

/**
 * Where a run's time goes, from a V8 CPU profile of this process (the same
 * profile `node --cpu-prof` writes, taken with the inspector around one piece
 * of work only). Each sample is charged to the first frame, from the sample's
 * own function up its stack, that a category claims; a sample in no category
 * is "other". V8's "(idle)" samples are time this thread waited: for a send,
 * the SMTP server's answers, the marks' fsyncs (run off the thread) and the
 * acceptance turns.
 */
type CallFrame = { functionName: string; url: string; lineNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[]; hitCount?: number };
type Profile = {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
};

export type Category = { name: string; claims: (frame: CallFrame) => boolean };

export type Breakdown = {
  totalMs: number;
  /** Milliseconds per category, in the categories' order, then "gc", "other" and "idle". */
  byCategory: { name: string; ms: number }[];
  /** The functions with the most samples of their own, heaviest first. */
  top: { name: string; where: string; ms: number }[];
};

/** Profiles `work`; writes the profile into `BENCH_CPU_PROFILE`'s directory when it is set. */
export async function profiled<T>(
  label: string,
  categories: Category[],
  work: () => Promise<T>,
): Promise<{ result: T; breakdown: Breakdown; file: string | null }> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  // 1 ms: fine enough for a per-message breakdown, cheap enough not to move the figures.
  await session.post("Profiler.setSamplingInterval", { interval: 1000 });
  await session.post("Profiler.start");
  let result: T;
  try {
    result = await work();
  } catch (error) {
    session.disconnect();
    throw error;
  }
  const { profile } = (await session.post("Profiler.stop")) as { profile: Profile };
  session.disconnect();
  let file: string | null = null;
  const directory = process.env.BENCH_CPU_PROFILE;
  if (directory) {
    fs.mkdirSync(directory, { recursive: true });
    file = path.join(directory, `${label}-${Date.now()}.cpuprofile`);
    fs.writeFileSync(file, JSON.stringify(profile));
  }
  return { result, breakdown: breakDown(profile, categories), file };
}

function breakDown(profile: Profile, categories: Category[]): Breakdown {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const charged = new Map<number, string>();
  const categoryOf = (id: number): string => {
    const known = charged.get(id);
    if (known) return known;
    const { functionName } = byId.get(id)!.callFrame;
    let name: string;
    if (functionName === "(idle)") name = "idle";
    else if (functionName === "(garbage collector)") name = "gc";
    else {
      let found: string | undefined;
      for (let at: number | undefined = id; at !== undefined && !found; at = parent.get(at)) {
        const frame = byId.get(at)!.callFrame;
        found = categories.find((category) => category.claims(frame))?.name;
      }
      name = found ?? "other";
    }
    charged.set(id, name);
    return name;
  };
  const ms = new Map<string, number>();
  const own = new Map<number, number>();
  profile.samples.forEach((id, index) => {
    // A sample's delta is the time since the previous one: it belongs to this sample.
    const delta = (profile.timeDeltas[index + 1] ?? 0) / 1000;
    const name = categoryOf(id);
    ms.set(name, (ms.get(name) ?? 0) + delta);
    own.set(id, (own.get(id) ?? 0) + delta);
  });
  const ownByFunction = new Map<string, { name: string; where: string; ms: number }>();
  for (const [id, time] of own) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const where = url ? `${shortUrl(url)}:${lineNumber + 1}` : "";
    const key = `${functionName}@${where}`;
    const entry = ownByFunction.get(key) ?? { name: functionName || "(anonymous)", where, ms: 0 };
    entry.ms += time;
    ownByFunction.set(key, entry);
  }
  const names = [...categories.map((category) => category.name), "gc", "other", "idle"];
  return {
    totalMs: (profile.endTime - profile.startTime) / 1000,
    byCategory: names.map((name) => ({ name, ms: ms.get(name) ?? 0 })),
    top: [...ownByFunction.values()].sort((a, b) => b.ms - a.ms).slice(0, 15),
  };
}

function shortUrl(url: string) {
  const local = url.replace(/^file:\/\//, "");
  const modules = local.lastIndexOf("node_modules/");
  if (modules >= 0) return local.slice(modules + "node_modules/".length);
  const root = process.cwd();
  return local.startsWith(root) ? local.slice(root.length + 1) : local;
}
