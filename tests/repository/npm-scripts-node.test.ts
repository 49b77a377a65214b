import fs from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";

/**
 * Every npm script that runs Node runs on production's (.node-version): through
 * scripts/with-node.sh, or a bash script that sources scripts/use-node.sh. On the machine's
 * own Node 20 the operator's commands (`send:due`, `db:restore`…) died with a segfault
 * (docs/decisions/0241-operator-commands-on-the-projects-node.md).
 */
const root = path.resolve(import.meta.dirname, "../..");
const { scripts } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
  scripts: Record<string, string>;
};

const WRAPPER = "bash scripts/with-node.sh ";
const SOURCES_USE_NODE = /^\s*\(?\s*\.\s+\S*use-node\.sh/m;

/** The programs a command line starts: each command's first word past `NAME=value`. */
function programs(command: string) {
  return command
    .split(/&&|\|\||[;|]/)
    .map((part) =>
      part
        .trim()
        .split(/\s+/)
        .find((word) => !/^\w+=/.test(word)),
    )
    .filter((word): word is string => Boolean(word));
}

function runsNode(program: string) {
  return (
    ["node", "npm", "npx"].includes(program) ||
    fs.existsSync(path.join(root, "node_modules", ".bin", program))
  );
}

test("every npm script that runs Node goes through scripts/with-node.sh", () => {
  const unwrapped = Object.entries(scripts).filter(([, command]) => {
    if (command.startsWith(WRAPPER)) return false;
    const script = /^bash (\S+\.sh)$/.exec(command)?.[1];
    if (script) return !SOURCES_USE_NODE.test(fs.readFileSync(path.join(root, script), "utf8"));
    return programs(command).some(runsNode);
  });
  expect(unwrapped).toEqual([]);
});

test("the rule sees a script's Node however it is started", () => {
  for (const command of ["node build/x.js", "PORT=1 tsx a.ts", "rm -rf build && npx vitest"]) {
    expect(programs(command).some(runsNode), command).toBe(true);
  }
  expect(programs("rm -rf build; echo done").some(runsNode)).toBe(false);
});
