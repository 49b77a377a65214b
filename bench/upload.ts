import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { paginateListObjectsV2, S3Client } from "@aws-sdk/client-s3";
import { eq } from "drizzle-orm";
import { openDatabase } from "#db/connection";
import { createFolder, createUser } from "#db/factories";
import { contentItems, folders } from "#db/schema";
import { type S3TestServer, startS3Server } from "#tests/support/s3-server";
import {
  freePort,
  procStatusBytes,
  requireBuild,
  type Server,
  signIn,
  startServer,
  stopServer,
  waitForHealth,
} from "./support/app-server";
import { type Run, runBenchmark } from "./support/run";

/**
 * `npm run bench:upload`: ten PDFs just under the 10 MB per-file limit are
 * uploaded one after another, as multipart form posts to
 * `/folders/:id/add/file`, to the production build on loopback. While they
 * run, the server's resident memory is sampled from /proc every 20 ms.
 * Prints the peak growth above idle (target: under 50 MB) and the upload
 * throughput next to a baseline measured in the same run: the same ten
 * buffers written straight to disk with `writeFile` + fsync. Runs once per
 * storage backend: the local disk (`STORAGE_DIR`), then S3 (`S3_BUCKET`) on
 * an S3 server on loopback (s3rver, in this process). Linux only (it reads
 * /proc). Needs `npm run build` first (the npm script does it).
 *
 * MB here is 1,048,576 bytes, as in app/modules/plans/limits.ts.
 */
const MB = 1024 * 1024;
const FILE_COUNT = 10;
/** Just under the per-file limit (LIMITS.item.maxFileBytes, enforced strictly). */
const FILE_BYTES = 10 * MB - 64 * 1024;
const TARGET_GROWTH_MB = 50;
const SAMPLE_EVERY_MS = 20;
const IDLE_MS = 1_000;
/** Everything, start to finish, must fit in this; otherwise the run is killed. */
const WATCHDOG_MS = 300_000;
const UPLOAD_TIMEOUT_MS = 60_000;

/**
 * A valid PDF of exactly `size` bytes: header, one stream object of random
 * bytes, trailer. file-type recognises it by its first bytes.
 */
function makePdf(size: number): Uint8Array<ArrayBuffer> {
  const head = Buffer.from("%PDF-1.4\n1 0 obj\n<< /Length 0000000000 >>\nstream\n", "latin1");
  const tail = Buffer.from("\nendstream\nendobj\ntrailer\n<< >>\n%%EOF", "latin1");
  const streamLength = size - head.length - tail.length;
  head.write(String(streamLength).padStart(10, "0"), head.indexOf("0000000000"), "latin1");
  const pdf = new Uint8Array(size);
  head.copy(pdf, 0);
  crypto.randomFillSync(pdf, head.length, streamLength);
  tail.copy(pdf, size - tail.length);
  return pdf;
}

/** A verified premium sender (no account quota) and one folder per upload (20 MB cap each). */
function seed(databasePath: string) {
  const db = openDatabase(databasePath);
  try {
    return db.transaction((tx) => {
      const user = createUser(tx, {
        email: "bench-upload@example.com",
        firstName: "Bench",
        lastName: "Mark",
        emailVerified: true,
        subscriptionTier: "premium",
        subscriptionStatus: "active",
      });
      const folderRows = Array.from({ length: FILE_COUNT }, (_, index) =>
        createFolder(tx, user.id, {
          name: `Upload ${index + 1}`,
          recipients: [{ name: "Mum", email: `mum${index}@example.com` }],
          nextSendAt: new Date(Date.now() + 3 * 24 * 60 * 60 * 1000),
          sortOrder: index,
        }),
      );
      return { user, folders: folderRows };
    });
  } finally {
    db.$client.close();
  }
}

/** Reads the server's RSS every 20 ms; `mark` starts a new window, `stop` ends sampling. */
function startRssSampler(pid: number) {
  const windows: { label: string; samples: number[] }[] = [{ label: "start", samples: [] }];
  let lastAt = performance.now();
  let worstGapMs = 0;
  const sample = () => {
    const now = performance.now();
    worstGapMs = Math.max(worstGapMs, now - lastAt);
    lastAt = now;
    windows.at(-1)!.samples.push(procStatusBytes(pid, "VmRSS"));
  };
  sample();
  const timer = setInterval(sample, SAMPLE_EVERY_MS);
  return {
    mark(label: string) {
      sample();
      windows.push({ label, samples: [] });
      worstGapMs = 0;
      lastAt = performance.now();
      sample();
    },
    stop() {
      sample();
      clearInterval(timer);
      return { windows, worstGapMs };
    },
  };
}

function median(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The csrf token of this session, read from the hidden field of the folder page's forms. */
async function readCsrfToken(url: string, cookie: string) {
  const response = await fetch(url, { headers: { cookie }, redirect: "manual" });
  const body = await response.text();
  if (response.status !== 200) {
    const location = response.headers.get("location");
    throw new Error(
      `GET ${url} answered ${response.status}${location ? ` (to ${location})` : ""}, not 200${
        location?.startsWith("/login") ? ": the session cookie was not accepted" : ""
      }`,
    );
  }
  const token = /<input[^>]*name="csrf"[^>]*value="([^"]+)"/.exec(body)?.[1];
  if (!token) throw new Error(`GET ${url}: no csrf field with a value in the page`);
  return token;
}

/** One upload through the add-file form; returns the seconds it took, request to response. */
async function upload(
  base: string,
  folderId: number,
  cookie: string,
  csrf: string,
  pdf: Uint8Array<ArrayBuffer>,
  index: number,
) {
  const form = new FormData();
  form.append("csrf", csrf);
  form.append("title", `Bench upload ${index + 1}`);
  form.append("addComment", "on");
  form.append("commentText", "Ten megabytes, give or take.");
  form.append("responseExpectation", "not_expecting");
  form.append("files", new Blob([pdf], { type: "application/pdf" }), `bench-${index + 1}.pdf`);
  const url = `${base}/folders/${folderId}/add/file`;
  const started = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers: { cookie },
    body: form,
    redirect: "manual",
    signal: AbortSignal.timeout(UPLOAD_TIMEOUT_MS),
  });
  const body = await response.text();
  const seconds = (performance.now() - started) / 1000;
  const location = response.headers.get("location");
  if (
    (response.status !== 302 && response.status !== 303) ||
    !location ||
    new URL(location, base).pathname !== `/folders/${folderId}`
  ) {
    throw new Error(
      `POST ${url} (file ${index + 1}) answered ${response.status}${
        location ? ` to ${location}` : ""
      }, not a redirect to /folders/${folderId}: ${body.replace(/\s+/g, " ").slice(0, 400)}`,
    );
  }
  return seconds;
}

/** Every stored file under the storage root (shards), skipping leftovers of interrupted writes. */
function storedFiles(root: string) {
  const files: { name: string; size: number }[] = [];
  if (!fs.existsSync(root)) return files;
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.endsWith(".partial")) continue;
    const full = path.join(entry.parentPath, entry.name);
    files.push({ name: entry.name, size: fs.statSync(full).size });
  }
  return files;
}

/** Every object in the bucket, as the S3 API lists it. */
async function storedObjects(s3: S3TestServer) {
  const { accessKeyId, secretAccessKey, ...settings } = s3.settings;
  const client = new S3Client({ ...settings, credentials: { accessKeyId, secretAccessKey } });
  try {
    const files: { name: string; size: number }[] = [];
    for await (const page of paginateListObjectsV2({ client }, { Bucket: s3.settings.bucket })) {
      for (const object of page.Contents ?? []) {
        files.push({ name: object.Key!, size: object.Size ?? 0 });
      }
    }
    return files;
  } finally {
    client.destroy();
  }
}

/** Where the server keeps the uploads: its settings and how to list what landed there. */
type Backend = {
  name: string;
  where: string;
  env: Record<string, string>;
  stored(dataDir: string): Promise<{ name: string; size: number }[]>;
};

/** The baseline: the same buffers written straight to disk, each one fsynced. */
async function writeDirectly(directory: string, buffers: Uint8Array<ArrayBuffer>[]) {
  fs.mkdirSync(directory, { recursive: true });
  const perFile: number[] = [];
  for (const [index, buffer] of buffers.entries()) {
    const started = performance.now();
    const handle = await fs.promises.open(path.join(directory, `direct-${index}.pdf`), "wx", 0o600);
    try {
      await handle.writeFile(buffer);
      await handle.sync();
    } finally {
      await handle.close();
    }
    perFile.push((performance.now() - started) / 1000);
  }
  return perFile;
}

const mb = (bytes: number) => (bytes / MB).toFixed(1);

type Result = { backend: Backend; uploadSeconds: number[] };

/** One backend: a fresh server and database, ten uploads, memory sampled; prints its table. */
async function measure(
  backend: Backend,
  dataDir: string,
  pdfs: Uint8Array<ArrayBuffer>[],
  killOnTimeout: Run["killOnTimeout"],
): Promise<Result> {
  let server: Server | null = null;
  try {
    const databasePath = path.join(dataDir, "app.db");
    const seeded = seed(databasePath);
    const cookie = await signIn(databasePath, seeded.user.id);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server = startServer(port, dataDir, backend.env);
    killOnTimeout(server.child);
    const pid = server.child.pid;
    if (pid === undefined) throw new Error("The server did not start");
    await waitForHealth(base, server);
    // Also warms up the folder page and the session code before idle is measured.
    const csrf = await readCsrfToken(`${base}/folders/${seeded.folders[0]!.id}`, cookie);

    const sampler = startRssSampler(pid);
    sampler.mark("idle");
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const uploadSeconds: number[] = [];
    for (const [index, pdf] of pdfs.entries()) {
      sampler.mark(`upload ${index + 1}`);
      uploadSeconds.push(await upload(base, seeded.folders[index]!.id, cookie, csrf, pdf, index));
    }
    const { windows, worstGapMs } = sampler.stop();
    const hwm = procStatusBytes(pid, "VmHWM");

    // Did the files really land?
    const db = openDatabase(databasePath, { migrate: false });
    let rows: (typeof contentItems.$inferSelect)[];
    try {
      rows = db
        .select({ item: contentItems })
        .from(contentItems)
        .innerJoin(folders, eq(folders.id, contentItems.folderId))
        .where(eq(folders.userId, seeded.user.id))
        .all()
        .map((row) => row.item);
    } finally {
      db.$client.close();
    }
    const fileRows = rows.filter((row) => row.type === "file" && row.fileSizes[0] === FILE_BYTES);
    if (rows.length !== FILE_COUNT || fileRows.length !== FILE_COUNT) {
      throw new Error(
        `Expected ${FILE_COUNT} file items of ${FILE_BYTES} bytes, found ${rows.length} items (${fileRows.length} matching)`,
      );
    }
    const stored = await backend.stored(dataDir);
    const keys = new Set(fileRows.flatMap((row) => row.filePaths));
    const landed = stored.filter((file) => keys.has(file.name) && file.size === FILE_BYTES);
    if (stored.length !== FILE_COUNT || landed.length !== FILE_COUNT) {
      throw new Error(
        `Expected ${FILE_COUNT} stored files of ${FILE_BYTES} bytes in ${backend.where}, found ${stored.length} files (${landed.length} matching the rows)`,
      );
    }

    const idleSamples = windows.find((window) => window.label === "idle")!.samples;
    const idle = median(idleSamples);
    const uploadWindows = windows.filter((window) => window.label.startsWith("upload"));
    const peak = Math.max(...uploadWindows.flatMap((window) => window.samples));
    const growth = peak - idle;
    const sampleCount = windows.reduce((sum, window) => sum + window.samples.length, 0);

    console.log("");
    console.log(`--- ${backend.name} (${backend.where}) ---`);
    console.log(
      `Server RSS sampled every ${SAMPLE_EVERY_MS} ms from /proc/${pid}/status (${sampleCount} samples, longest gap ${worstGapMs.toFixed(0)} ms).`,
    );
    console.log(
      `${"upload".padEnd(10)}${"seconds".padStart(9)}${"MB/s".padStart(9)}${"peak RSS MB".padStart(14)}${"over idle MB".padStart(14)}`,
    );
    uploadWindows.forEach((window, index) => {
      const windowPeak = Math.max(...window.samples);
      console.log(
        `${String(index + 1).padEnd(10)}${uploadSeconds[index]!.toFixed(3).padStart(9)}${(FILE_BYTES / MB / uploadSeconds[index]!).toFixed(1).padStart(9)}${mb(windowPeak).padStart(14)}${mb(windowPeak - idle).padStart(14)}`,
      );
    });
    console.log(
      `idle RSS (median of ${idleSamples.length} samples over ${IDLE_MS / 1000} s): ${mb(idle)} MB; peak RSS during uploads: ${mb(peak)} MB; VmHWM at the end: ${mb(hwm)} MB`,
    );
    console.log(
      `peak memory growth above idle: ${mb(growth)} MB  (target < ${TARGET_GROWTH_MB} MB) ${growth < TARGET_GROWTH_MB * MB ? "PASS" : "MISS"}`,
    );
    console.log(
      `landed: ${rows.length} rows, ${landed.length} files of ${FILE_BYTES} bytes in ${backend.where}`,
    );
    return { backend, uploadSeconds };
  } finally {
    if (server) await stopServer(server);
  }
}

async function main({ dataDir, killOnTimeout }: Run) {
  if (process.platform !== "linux") throw new Error("This benchmark reads /proc: Linux only.");
  requireBuild();
  const pdfs = Array.from({ length: FILE_COUNT }, () => makePdf(FILE_BYTES));
  console.log(
    `Node ${process.version}, ${os.cpus().length} CPUs. ${FILE_COUNT} PDFs of ${FILE_BYTES} bytes (${mb(FILE_BYTES)} MB; 1 MB = 1,048,576 bytes), uploaded one after another to /folders/:id/add/file on loopback.`,
  );
  const s3 = await startS3Server("bench-upload");
  try {
    const backends: Backend[] = [
      {
        name: "local disk",
        where: "STORAGE_DIR",
        env: {},
        stored: async (dir) => storedFiles(path.join(dir, "uploads")),
      },
      {
        name: "S3",
        where: `bucket ${s3.settings.bucket} on s3rver at ${s3.settings.endpoint}`,
        env: s3.env,
        stored: () => storedObjects(s3),
      },
    ];
    const results: Result[] = [];
    for (const backend of backends) {
      const backendDir = path.join(dataDir, backend.name.replace(/\W+/g, "-"));
      fs.mkdirSync(backendDir, { recursive: true });
      results.push(await measure(backend, backendDir, pdfs, killOnTimeout));
    }

    // The baseline, in the same run, onto the same filesystem.
    const directSeconds = await writeDirectly(path.join(dataDir, "direct"), pdfs);
    const directTotal = directSeconds.reduce((sum, seconds) => sum + seconds, 0);
    const totalBytes = pdfs.reduce((sum, pdf) => sum + pdf.byteLength, 0);
    const directRate = totalBytes / MB / directTotal;
    console.log("");
    console.log(
      `baseline, writeFile + fsync of the same buffers: ${directRate.toFixed(1)} MB/s (${directTotal.toFixed(2)} s)`,
    );
    for (const { backend, uploadSeconds } of results) {
      const uploadTotal = uploadSeconds.reduce((sum, seconds) => sum + seconds, 0);
      const uploadRate = totalBytes / MB / uploadTotal;
      console.log(
        `${backend.name}: upload throughput ${uploadRate.toFixed(1)} MB/s (${mb(totalBytes)} MB in ${uploadTotal.toFixed(2)} s), upload / baseline ${(uploadRate / directRate).toFixed(2)}`,
      );
    }
  } finally {
    await s3.close();
  }
}

await runBenchmark("bench:upload", WATCHDOG_MS, main);
