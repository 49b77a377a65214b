import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { VIDEO_TOO_LARGE_MESSAGE, VIDEO_UPLOAD_BODY_MAX_BYTES } from "~/modules/files/upload-kinds";
import type { RouteBodyLimit } from "~/platform/route-body-limit";
import * as addContent from "./$folderId.add.$type";

/**
 * Add Video is the Add Content sheet with one clip's larger body limit: a route of its own
 * (docs/decisions/0207-adding-a-video-from-the-folder.md) so every other type keeps the
 * smaller limit of `$folderId.add.$type.tsx`.
 */
export const bodyLimit: RouteBodyLimit = {
  multipart: VIDEO_UPLOAD_BODY_MAX_BYTES,
  tooLargeMessage: VIDEO_TOO_LARGE_MESSAGE,
};

const asVideo = <Args extends { params: LoaderFunctionArgs["params"] }>(args: Args) => ({
  ...args,
  params: { ...args.params, type: "video" },
});

export const loader = (args: LoaderFunctionArgs) => addContent.loader(asVideo(args));
export const action = (args: ActionFunctionArgs) => addContent.action(asVideo(args));
export { default, ErrorBoundary, meta } from "./$folderId.add.$type";
