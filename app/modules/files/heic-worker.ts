import { parentPort, workerData } from "node:worker_threads";
import { openHeic } from "./heic-decoding.server";
import type { HeicThreadReply, HeicThreadRequest } from "./heic-thread.server";

/**
 * The HEIC thread (started by heic-thread.server.ts for one photo, the file's
 * bytes in `workerData`): says the picture's layout, decodes it shrunk when
 * asked, and ends. Whatever goes wrong here is the file's: a crafted one can
 * make libheif abort, which ends only this thread.
 */
const port = parentPort;
if (!port) throw new Error("heic-worker.ts runs as a worker thread only");

const reply = (message: HeicThreadReply, transfer: ArrayBuffer[] = []) =>
  port.postMessage(message, transfer);
const unreadable = (error: unknown) =>
  reply({ type: "unreadable", message: error instanceof Error ? error.message : String(error) });

try {
  const photo = await openHeic(workerData as Uint8Array);
  port.once("message", (request: HeicThreadRequest) => {
    try {
      const raw = photo.decodeShrunk(request.shrink);
      const { buffer, byteOffset, byteLength } = raw.pixels;
      // The pixels are a buffer of their own (Shrinker), handed over without a copy.
      const pixels =
        byteOffset === 0 && byteLength === buffer.byteLength ? buffer : raw.pixels.slice().buffer;
      reply(
        {
          type: "decoded",
          width: raw.width,
          height: raw.height,
          channels: raw.channels,
          pixels: pixels as ArrayBuffer,
        },
        [pixels as ArrayBuffer],
      );
    } catch (error) {
      unreadable(error);
    } finally {
      photo.dispose();
      port.close();
    }
  });
  reply({ type: "layout", layout: photo.layout });
} catch (error) {
  unreadable(error);
  port.close();
}
