import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { VIDEO_TOO_LARGE_MESSAGE, VIDEO_UPLOAD_BODY_MAX_BYTES } from "~/modules/files/upload-kinds";
import type { RouteBodyLimit } from "~/platform/route-body-limit";
import * as contentStep from "./index";

/**
 * The wizard's content step for a clip, with one clip's body limit: a route of its own
 * (docs/decisions/0227-videos-through-the-wizard-and-the-share-sheet.md) so the step for
 * every other type keeps the smaller limit of `index.tsx`.
 */
export const bodyLimit: RouteBodyLimit = {
  multipart: VIDEO_UPLOAD_BODY_MAX_BYTES,
  tooLargeMessage: VIDEO_TOO_LARGE_MESSAGE,
};

const asVideoDoor = <Args extends { params: LoaderFunctionArgs["params"] }>(args: Args) => ({
  ...args,
  params: { ...args.params, door: "video" },
});

export const loader = (args: LoaderFunctionArgs) => contentStep.loader(asVideoDoor(args));
export const action = (args: ActionFunctionArgs) => contentStep.action(asVideoDoor(args));
export { default } from "./index";
