import fs from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { loadSharp } from "~/platform/sharp.server";
import {
  HeicDecodeError,
  type HeicLayout,
  type HeicTransform,
  type RawPhoto,
} from "./heic-decoding.server";

/**
 * A HEIC photo decoded on a thread of its own (heic-worker.ts), one thread
 * for each photo, ended with it: libheif's WebAssembly keeps the thread it
 * runs on busy for as long as the decode lasts (0.6 s for 25 megapixels, 2.8
 * s for 48 on the 2-core machine, measured with the whole picture at once),
 * and every request would wait that long. The thread's memory, the
 * instance's included, goes when it ends. The memory budget is charged here,
 * on the server's thread, before the pixels are asked for
 * (docs/decisions/0238-photo-decodes-in-the-budget.md).
 */
export type HeicThreadRequest = { type: "decode"; shrink: number };
export type HeicThreadReply =
  | { type: "layout"; layout: HeicLayout }
  | { type: "decoded"; width: number; height: number; channels: 3 | 4; pixels: ArrayBuffer }
  | { type: "unreadable"; message: string };

/**
 * heic-worker.ts as `npm run build` compiles it (scripts/build-server.ts), found from the working
 * directory as the scheduler's thread is; unit tests that decode a HEIC run after the build too.
 */
const WORKER_FILE = path.resolve("build/server/heic-worker.js");
/** Its heap holds the decoder's JavaScript; the pixels are outside it. */
const WORKER_HEAP_MB = 64;

export type HeicOnItsThread = {
  layout: HeicLayout;
  /** The picture shrunk by a whole factor and shown as the file says (turned, mirrored, cropped); call at most once. */
  decode(shrink: number): Promise<RawPhoto>;
  /** Ends the thread (at once, if it is still decoding); safe to call twice. */
  close(): Promise<void>;
};

/** Starts a thread for `bytes` and waits for the layout of its picture; a HeicDecodeError when libheif cannot read it. */
export async function openHeicOnItsThread(bytes: Uint8Array): Promise<HeicOnItsThread> {
  if (!fs.existsSync(WORKER_FILE)) {
    throw new Error(`${WORKER_FILE} is missing: run \`npm run build\` first.`);
  }
  const copy = new Uint8Array(bytes);
  const worker = new Worker(WORKER_FILE, {
    workerData: copy,
    transferList: [copy.buffer],
    // The server's own flags (a profiler, a preload) stay its own.
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
  });
  // A photo being decoded does not keep a stopping server alive.
  worker.unref();
  const replies = repliesOf(worker);
  const close = async () => {
    await worker.terminate();
  };
  const first = await replies.next();
  if (first.type !== "layout") {
    await close();
    throw new HeicDecodeError(first.type === "unreadable" ? first.message : "No layout");
  }
  return {
    layout: first.layout,
    async decode(shrink) {
      worker.postMessage({ type: "decode", shrink } satisfies HeicThreadRequest);
      const answer = await replies.next();
      await close();
      if (answer.type !== "decoded") {
        throw new HeicDecodeError(answer.type === "unreadable" ? answer.message : "No pixels");
      }
      const stored: RawPhoto = {
        pixels: Buffer.from(answer.pixels),
        width: answer.width,
        height: answer.height,
        channels: answer.channels,
      };
      return shown(stored, first.layout.transforms, shrink);
    },
    close,
  };
}

/** The thread's replies in order; an exit or a crash before the next one reads as "unreadable". */
function repliesOf(worker: Worker) {
  const queue: HeicThreadReply[] = [];
  let waiting: ((reply: HeicThreadReply) => void) | null = null;
  const deliver = (reply: HeicThreadReply) => {
    if (waiting) {
      const resolve = waiting;
      waiting = null;
      resolve(reply);
    } else queue.push(reply);
  };
  worker.on("message", deliver);
  worker.on("error", (error) => deliver({ type: "unreadable", message: error.message }));
  worker.on("exit", () => deliver({ type: "unreadable", message: "The HEIC thread ended" }));
  return {
    next: () =>
      new Promise<HeicThreadReply>((resolve) => {
        const ready = queue.shift();
        if (ready) resolve(ready);
        else waiting = resolve;
      }),
  };
}

/** The stored picture turned, mirrored and cropped as its file says, in its order, by sharp. */
async function shown(stored: RawPhoto, transforms: HeicTransform[], shrink: number) {
  const sharp = await loadSharp();
  let photo = stored;
  for (const transform of transforms) {
    const image = sharp(photo.pixels, {
      raw: { width: photo.width, height: photo.height, channels: photo.channels },
    });
    let step: typeof image;
    if ("turn" in transform) {
      // irot turns anticlockwise, sharp clockwise.
      step = image.rotate((360 - (transform.turn % 360)) % 360);
    } else if ("mirror" in transform) {
      step = transform.mirror === "left-right" ? image.flop() : image.flip();
    } else {
      // The borders are the full picture's; the shrunk one loses as many of its own pixels.
      const [left, top, right, bottom] = [
        transform.crop.left,
        transform.crop.top,
        transform.crop.right,
        transform.crop.bottom,
      ].map((border) => Math.round(Math.max(0, border) / shrink)) as [
        number,
        number,
        number,
        number,
      ];
      step = image.extract({
        left: Math.min(left, photo.width - 1),
        top: Math.min(top, photo.height - 1),
        width: Math.max(1, photo.width - left - right),
        height: Math.max(1, photo.height - top - bottom),
      });
    }
    const { data, info } = await step.raw().toBuffer({ resolveWithObject: true });
    photo = { pixels: data, width: info.width, height: info.height, channels: photo.channels };
  }
  return photo;
}
