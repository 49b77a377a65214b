import { getZodConstraint } from "@conform-to/zod/v4";
import type { z } from "~/platform/zod";

/**
 * The HTML constraints of a form's fields (required, minlength, maxlength, min, max, pattern),
 * from the schema that checks it: conform's getZodConstraint, with two gaps of conform 1.21 on
 * zod 4.6 closed (docs/decisions/0180-zod-4.md).
 *
 * - conform reads the bounds of a string or a number from the schema's `_zod.bag`, which zod 4.6
 *   no longer fills (conform issue 1340). Each bound written in the schema (`.min()`, `.max()`,
 *   `.length()`, `.regex()`) is put back there as zod 4.5 put it, so `.max(30)` is
 *   `maxlength="30"` again. Only those: `.int()`'s safe-integer range and an exclusive bound
 *   (`.positive()`) have no attribute, as before zod 4.
 * - conform refuses a schema whose last step is a `.transform()` (the value as the action wants
 *   it): a form's fields are those the transform is given.
 */
export function getFormConstraint(schema: z.core.$ZodType) {
  let fields = schema;
  while (isPipe(fields._zod.def) && isTransform(fields._zod.def.out._zod.def)) {
    fields = fields._zod.def.in;
  }
  restoreBounds(fields);
  return getZodConstraint(fields);
}

type Def = { type: string; checks?: z.core.$ZodCheck[] } & Record<string, unknown>;

const isPipe = (def: z.core.$ZodTypeDef): def is z.core.$ZodPipeDef => def.type === "pipe";
const isTransform = (def: z.core.$ZodTypeDef) => def.type === "transform";

const restored = new WeakSet<z.core.$ZodType>();

function restoreBounds(schema: z.core.$ZodType) {
  if (restored.has(schema)) return;
  restored.add(schema);
  const def = schema._zod.def as unknown as Def;
  if (def.type === "string" || def.type === "number") fillBag(schema._zod.bag, def.checks ?? []);
  for (const inner of innerSchemas(def)) restoreBounds(inner);
}

function fillBag(bag: Record<string, unknown>, checks: z.core.$ZodCheck[]) {
  const tighten = (key: "minimum" | "maximum", value: number) => {
    const current = bag[key];
    if (typeof current !== "number") bag[key] = value;
    else bag[key] = key === "minimum" ? Math.max(current, value) : Math.min(current, value);
  };
  for (const check of checks) {
    const def = check._zod.def as z.core.$ZodChecks["_zod"]["def"];
    if (def.check === "min_length") tighten("minimum", def.minimum);
    else if (def.check === "max_length") tighten("maximum", def.maximum);
    else if (def.check === "length_equals") {
      tighten("minimum", def.length);
      tighten("maximum", def.length);
    } else if (def.check === "greater_than" && def.inclusive && typeof def.value === "number") {
      tighten("minimum", def.value);
    } else if (def.check === "less_than" && def.inclusive && typeof def.value === "number") {
      tighten("maximum", def.value);
    } else if (def.check === "string_format" && def.format === "regex" && def.pattern) {
      const patterns = (bag.patterns as Set<RegExp> | undefined) ?? new Set<RegExp>();
      bag.patterns = patterns.add(def.pattern);
    }
  }
}

/** The schemas inside one, where conform looks for fields. */
function innerSchemas(def: Def): z.core.$ZodType[] {
  switch (def.type) {
    case "object":
      return Object.values(def.shape as Record<string, z.core.$ZodType>);
    case "array":
      return [def.element as z.core.$ZodType];
    case "pipe":
      return [def.in as z.core.$ZodType, def.out as z.core.$ZodType];
    case "union":
      return def.options as z.core.$ZodType[];
    case "intersection":
      return [def.left as z.core.$ZodType, def.right as z.core.$ZodType];
    case "tuple":
      return def.items as z.core.$ZodType[];
    case "lazy":
      return [(def.getter as () => z.core.$ZodType)()];
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "catch":
    case "readonly":
    case "nonoptional":
      return [def.innerType as z.core.$ZodType];
    default:
      return [];
  }
}
