import { expect, test } from "vitest";
import { viewOf } from "./view-tabs";

test.each([
  ["/", "share"],
  ["/folders/3", "share"],
  ["/folders/3/edit", "share"],
  ["/folders/3/items/9/edit", "share"],
  ["/folders/new", "share"],
  ["/add", "share"],
  ["/upload/abc/check", "share"],
  ["/save", "save"],
  ["/save/", "save"],
  ["/folders/3/sent", "save"],
  ["/folders/3/sent/12", "save"],
  ["/profile", null],
  ["/upgrade", null],
  ["/saved-things", null],
  ["/folders/3/sentinel", "share"],
])("%s belongs to %s", (path, view) => {
  expect(viewOf(path)).toBe(view);
});
