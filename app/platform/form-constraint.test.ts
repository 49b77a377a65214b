import { expect, test } from "vitest";
import { FolderSchema } from "~/modules/folders/folder-validation";
import { LinkSchema } from "~/modules/items/item-validation";
import { z } from "~/platform/zod";
import { getFormConstraint } from "./form-constraint";

test("each bound written in a schema is an HTML constraint, as before zod 4", () => {
  const constraint = getFormConstraint(
    z.object({
      name: z.string().trim().min(1, "Name it").max(30),
      code: z.string().length(6),
      colour: z.string().regex(/^#[0-9a-f]{6}$/),
      day: z.coerce.number().int().min(1).max(7).default(1),
      count: z.coerce.number().int().positive(),
      note: z.string().max(500).optional(),
      tags: z.array(z.string().max(20)).max(5),
    }),
  );
  expect({ ...constraint }).toEqual({
    name: { required: true, minLength: 1, maxLength: 30 },
    code: { required: true, minLength: 6, maxLength: 6 },
    colour: { required: true, pattern: "^(?=.*(?:^#[0-9a-f]{6}$)).*$" },
    day: { required: false, min: 1, max: 7 },
    // An exclusive bound and .int()'s safe range have no attribute.
    count: { required: true },
    note: { required: false, maxLength: 500 },
    tags: { required: true, multiple: true },
    "tags[]": { required: true, maxLength: 20 },
  });
});

test("a schema that ends in a transform is constrained by the fields it is given", () => {
  expect(getFormConstraint(FolderSchema)["recipients[0].name"]).toEqual({
    required: false,
    maxLength: 30,
  });
  expect(getFormConstraint(FolderSchema).dayOfMonth).toEqual({ required: false, min: 1, max: 31 });
  expect(getFormConstraint(LinkSchema).title).toEqual({ required: false, maxLength: 200 });
});

test("a schema's own parse is untouched by reading its constraints", () => {
  const schema = z.object({ name: z.string().min(2).max(3) });
  getFormConstraint(schema);
  expect(schema.safeParse({ name: "abcd" }).success).toBe(false);
  expect(schema.safeParse({ name: "abc" }).success).toBe(true);
  expect(schema.shape.name.maxLength).toBe(3);
});
