import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { posix } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * db/, storage/ and emails/ sit below the app: they import nothing from app/
 * and read no environment, so any test or script can import them in any order
 * without loading (and validating) the app's configuration. The configured
 * instances (the database handle, the file store) live in app/platform.
 */
const LOWER_LAYERS = ["db/", "storage/", "emails/"];

const importSpecifier = /(?:from\s+|import\s*\(\s*|require\s*\(\s*)["']([^"']+)["']/g;

function sourceFiles(): string[] {
  return execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\n")
    .filter((path) => /\.(ts|tsx|mjs)$/.test(path) && existsSync(`${root}/${path}`));
}

function lowerLayerFiles(): string[] {
  return sourceFiles().filter((path) => LOWER_LAYERS.some((layer) => path.startsWith(layer)));
}

function importsOf(path: string): string[] {
  return [...readFileSync(`${root}/${path}`, "utf8").matchAll(importSpecifier)].map(
    (match) => match[1] as string,
  );
}

/** Where a relative specifier lands, repository-relative; null for aliases and packages. */
function landing(path: string, specifier: string): string | null {
  if (!specifier.startsWith(".")) return null;
  return posix.normalize(posix.join(posix.dirname(path), specifier));
}

function reachesIntoTheApp(specifier: string) {
  return specifier.startsWith("~/") || /(^|\/)app\//.test(specifier);
}

describe("lower layers stay below the app", () => {
  test("db/, storage/ and emails/ import nothing from app/", () => {
    const offending = lowerLayerFiles().flatMap((path) =>
      importsOf(path)
        .filter(reachesIntoTheApp)
        .map((specifier) => `${path} imports ${specifier}`),
    );
    expect(offending).toEqual([]);
  });

  test("db/, storage/ and emails/ read no environment outside their tests", () => {
    const offending = lowerLayerFiles()
      .filter((path) => !/\.test\.tsx?$/.test(path))
      .filter((path) => readFileSync(`${root}/${path}`, "utf8").includes("process.env"));
    expect(offending).toEqual([]);
  });

  test("the check recognises a reach into the app", () => {
    expect(reachesIntoTheApp("~/platform/env.server")).toBe(true);
    expect(reachesIntoTheApp("../app/utils/format")).toBe(true);
    expect(reachesIntoTheApp("#db/schema")).toBe(false);
    expect(reachesIntoTheApp("./connection")).toBe(false);
  });
});

/**
 * The app's own layers: domain modules (app/modules/<domain>) and the platform
 * under them (app/platform) hold rules and plumbing, so they never reach up
 * into components, routes or the document. The platform serves every domain
 * and uses none (CSRF, bound to the session, is the accounts domain's).
 */
describe("domain modules and the platform stay under the screens", () => {
  // Tests may drive a route through its action, as a browser would.
  const files = () =>
    sourceFiles().filter(
      (path) => /^app\/(modules|platform)\//.test(path) && !/\.test\.tsx?$/.test(path),
    );

  test("they import neither components, routes nor the root", () => {
    const offending = files().flatMap((path) =>
      importsOf(path)
        .filter((specifier) => /^~\/(components|routes|root)\b/.test(specifier))
        .map((specifier) => `${path} imports ${specifier}`),
    );
    expect(offending).toEqual([]);
  });

  test("the platform imports no domain module", () => {
    const offending = files()
      .filter((path) => path.startsWith("app/platform/"))
      .flatMap((path) =>
        importsOf(path)
          .filter((specifier) => specifier.startsWith("~/modules/"))
          .map((specifier) => `${path} imports ${specifier}`),
      );
    expect(offending).toEqual([]);
  });
});

/**
 * One import style: a sibling in the same folder is `./name`; anything in
 * another top-level folder is reached by its alias (`~/` for app/, `#db/`,
 * `#emails/`, `#storage/`, `#server/`, `#tests/`); inside app/, every other
 * folder is reached by `~/` too, so moving a file never changes how others
 * import it. `../` is left for tests' and benches' own support files.
 */
describe("imports use one style", () => {
  test("no relative import leaves its top-level folder, and app/ has none with ../", () => {
    // Root files (the tools' configs) have no top-level folder of their own.
    const offending = sourceFiles()
      .filter((path) => path.includes("/"))
      .flatMap((path) =>
        importsOf(path)
          .filter((specifier) => {
            const target = landing(path, specifier);
            if (target === null) return false;
            if (path.startsWith("app/") && specifier.startsWith("../")) return true;
            return target.split("/")[0] !== path.split("/")[0];
          })
          .map((specifier) => `${path} imports ${specifier}`),
      );
    expect(offending).toEqual([]);
  });

  test("the check sees where a relative import lands", () => {
    expect(landing("bench/support/app-server.ts", "../../tests/support/free-port")).toBe(
      "tests/support/free-port",
    );
    expect(landing("tests/integration/a.test.ts", "../support/smtp-sink")).toBe(
      "tests/support/smtp-sink",
    );
    expect(landing("app/modules/items/a.ts", "~/platform/db.server")).toBeNull();
  });
});

/**
 * Domains that stack (docs/decisions/0084-domains-that-stack.md): each domain
 * module may import only the domains below it in this order, lowest first.
 * Services more than one domain needs live under them, in app/platform or in
 * a module low in the order (files), never inside a domain that also uses its
 * callers. A domain missing from the list fails the check until it is placed.
 */
const DOMAIN_ORDER = [
  "plans",
  "files",
  "folders",
  "billing",
  "auth",
  "accounts",
  "items",
  "recipients",
  "deliverability",
  "sending",
  "uploads",
  "save-by-email",
  "answers",
  "admin",
  "dashboard",
  "api",
  "jobs",
];

type AppImport = { path: string; specifier: string; target: string; typeOnly: boolean };

const importStatement =
  /^\s*(?:import|export)\s+(type\s+)?(?:[^"';]*?\s+from\s+)?["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)/gm;

/** The specifiers a source imports, static or dynamic; `import type` loads nothing at run time. */
function importsIn(source: string) {
  return [...source.matchAll(importStatement)].map((match) => ({
    specifier: (match[2] ?? match[3]) as string,
    typeOnly: match[1] !== undefined,
  }));
}

/** The app file a `~/` or relative specifier names, or null for packages and other aliases. */
function appFileFor(path: string, specifier: string, files: Set<string>): string | null {
  let base: string;
  if (specifier.startsWith("~/")) base = `app/${specifier.slice(2)}`;
  else if (specifier.startsWith(".")) base = posix.join(posix.dirname(path), specifier);
  else return null;
  return (
    [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`].find((file) => files.has(file)) ?? null
  );
}

function appImports(): AppImport[] {
  const files = new Set(sourceFiles().filter((path) => path.startsWith("app/")));
  return [...files].flatMap((path) =>
    importsIn(readFileSync(`${root}/${path}`, "utf8")).flatMap(({ specifier, typeOnly }) => {
      const target = appFileFor(path, specifier, files);
      return target === null ? [] : [{ path, specifier, target, typeOnly }];
    }),
  );
}

const domainOf = (path: string) => /^app\/modules\/([^/]+)\//.exec(path)?.[1] ?? null;

/**
 * Imports between two domains, by code (tests may set up with any module, as
 * above), seen through the folders of no domain between them (app/utils,
 * app/platform, app/components): a domain that reaches another through a
 * shared helper depends on it as surely as by a direct import.
 */
function crossDomainImports(imports: AppImport[]) {
  const importsOfFile = new Map<string, AppImport[]>();
  for (const entry of imports) {
    importsOfFile.set(entry.path, [...(importsOfFile.get(entry.path) ?? []), entry]);
  }
  /** The domain files an import reaches, directly or through files of no domain, and the way. */
  const reached = (start: AppImport) => {
    const found: { target: string; through: string[] }[] = [];
    const seen = new Set<string>();
    const walk = (entry: AppImport, through: string[]) => {
      if (domainOf(entry.target) !== null) {
        found.push({ target: entry.target, through });
      } else if (!seen.has(entry.target)) {
        seen.add(entry.target);
        for (const next of importsOfFile.get(entry.target) ?? []) {
          walk(next, [...through, entry.target]);
        }
      }
    };
    walk(start, []);
    return found;
  };
  return imports.flatMap((entry) => {
    const from = domainOf(entry.path);
    if (from === null || /\.test\.tsx?$/.test(entry.path)) return [];
    return reached(entry).flatMap(({ target, through }) => {
      const to = domainOf(target);
      if (to === null || to === from) return [];
      const specifier = through.length
        ? `${entry.specifier} (through ${through.join(", ")})`
        : entry.specifier;
      return [{ ...entry, target, specifier, from, to }];
    });
  });
}

/** Pairs of domains that import each other, each named once. */
function mutualPairs(edges: { from: string; to: string }[]) {
  const seen = new Set(edges.map(({ from, to }) => `${from}>${to}`));
  return [...seen]
    .map((edge) => edge.split(">") as [string, string])
    .filter(([from, to]) => from < to && seen.has(`${to}>${from}`))
    .map(([from, to]) => `${from} <-> ${to}`);
}

/** Imports from a domain to one at or above it in the order, or to one missing from it. */
function upwardImports(edges: { from: string; to: string; path: string; specifier: string }[]) {
  const rank = (domain: string) => DOMAIN_ORDER.indexOf(domain);
  return edges
    .filter(({ from, to }) => rank(from) === -1 || rank(to) === -1 || rank(to) >= rank(from))
    .map(({ path, specifier, from, to }) => `${path} imports ${specifier} (${from} -> ${to})`);
}

/** Every group of files that import one another round a circle (Tarjan's strongly connected components). */
function circles(graph: Map<string, string[]>) {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (stack.includes(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      group.push(member);
    } while (member !== node);
    if (group.length > 1 || graph.get(node)?.includes(node)) found.push(group.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe("domains stack in one order", () => {
  test("every domain has its place in the order", () => {
    const domains = [...new Set(sourceFiles().map(domainOf))].filter((domain) => domain !== null);
    expect(domains.filter((domain) => !DOMAIN_ORDER.includes(domain))).toEqual([]);
  });

  test("the README's layout names every domain, in this order", () => {
    const layout = readFileSync(`${root}/README.md`, "utf8")
      .split("modules/<domain>/")[1]
      ?.split("\n  platform/")[0];
    const listed = [...(layout ?? "").matchAll(/^ {4}([a-z-]+)\/ /gm)].map((match) => match[1]);
    expect(listed).toEqual(DOMAIN_ORDER);
  });

  test("no two domains import each other", () => {
    expect(mutualPairs(crossDomainImports(appImports()))).toEqual([]);
  });

  test("a domain imports only domains below it", () => {
    expect(upwardImports(crossDomainImports(appImports()))).toEqual([]);
  });

  test("no files under app/ import one another in a circle", () => {
    // A type-only import is erased from the build: it loads nothing, so it closes no circle.
    const graph = new Map<string, string[]>();
    for (const { path, target, typeOnly } of appImports()) {
      if (!typeOnly) graph.set(path, [...(graph.get(path) ?? []), target]);
    }
    expect(circles(graph).map((group) => group.join(", "))).toEqual([]);
  });

  test("the checks see a domain edge that passes through utils, the platform or components", () => {
    const planted = (path: string, target: string) => ({
      path,
      specifier: `~/${target.slice("app/".length).replace(/\.tsx?$/, "")}`,
      target,
      typeOnly: false,
    });
    const edges = crossDomainImports([
      planted("app/modules/plans/quota.server.ts", "app/utils/plan.ts"),
      planted("app/utils/plan.ts", "app/platform/prices.ts"),
      planted("app/platform/prices.ts", "app/components/price.tsx"),
      // A circle among the helpers is walked once.
      planted("app/components/price.tsx", "app/utils/plan.ts"),
      planted("app/components/price.tsx", "app/modules/items/items.server.ts"),
      planted("app/modules/items/items.server.ts", "app/utils/quota-words.ts"),
      planted("app/utils/quota-words.ts", "app/modules/plans/quota.server.ts"),
    ]);
    expect(upwardImports(edges)).toEqual([
      "app/modules/plans/quota.server.ts imports ~/utils/plan (through app/utils/plan.ts, app/platform/prices.ts, app/components/price.tsx) (plans -> items)",
    ]);
    expect(mutualPairs(edges)).toEqual(["items <-> plans"]);
  });

  test("the checks see pairs, upward imports, circles and type-only imports", () => {
    const edge = (from: string, to: string) => ({ from, to, path: `${from}.ts`, specifier: to });
    expect(mutualPairs([edge("b", "a"), edge("a", "b"), edge("a", "c")])).toEqual(["a <-> b"]);
    expect(upwardImports([edge("items", "billing"), edge("billing", "items")])).toEqual([
      "billing.ts imports items (billing -> items)",
    ]);
    expect(upwardImports([edge("items", "nowhere")])).toHaveLength(1);
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["a", "d"]],
    ]);
    expect(circles(graph)).toEqual([["a", "b", "c"], ["d"]]);
    expect(
      importsIn(
        'import type { A } from "~/a";\nimport {\n  type B,\n  c,\n} from "./b";\nconst d = await import("./d");',
      ),
    ).toEqual([
      { specifier: "~/a", typeOnly: true },
      { specifier: "./b", typeOnly: false },
      { specifier: "./d", typeOnly: false },
    ]);
    expect(domainOf("app/modules/items/items.server.ts")).toBe("items");
    expect(domainOf("app/platform/db.server.ts")).toBeNull();
  });
});
