import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import type { Transporter } from "nodemailer";
import type Mail from "nodemailer/lib/mailer";
import { createFolder, createUser } from "#db/factories";
import {
  freePort,
  procStatusBytes,
  repoRoot,
  requireBuild,
  type Server,
  signIn,
  startServer,
  stopServer,
  waitForHealth,
} from "./support/app-server";
import { seedDashboard } from "./support/dashboard-fixture";
import { plainNodemailer } from "./support/plain-nodemailer";
import { type Run, runBenchmark } from "./support/run";
import { type Sink, startSink, stopSink } from "./support/sink-process";

/**
 * `npm run bench:scale`: 00:01 at scale. 20,000 senders in five time zones,
 * one weekly folder each (a link and a musing, 5 recipients: 100,000
 * recipients in all), every folder due in the same minute. The production
 * server (server/index.ts on the production build, SCHEDULER=on, its heap
 * capped as on Fly) sends them with its own scheduler, at the minute's tick,
 * into an SMTP sink on loopback (its own process), while a load generator asks
 * for a signed-in dashboard at a steady rate.
 *
 * Prints: messages per second of the pass against plain nodemailer (the same
 * production transport, createSmtpTransport, sending one pre-rendered
 * newsletter again and again) in the same run; the server's peak memory; its
 * event-loop delay percentiles idle and during the pass (a preloaded monitor,
 * bench/support/loop-monitor.mjs); the dashboard's p50 and p99 idle and during
 * the pass. Then checks exactly-once: the sink got exactly one message for
 * every recipient of every due folder and nothing else, every ledger is sent,
 * nobody is pending, every item is marked sent and every folder moved on.
 *
 * SINK_LATENCY_MS (0 when unset) makes the sink answer each end of DATA that
 * much later, as a relay across the network does; SMTP_MAX_CONNECTIONS (16
 * when unset) is the connections of the server and of plain nodemailer, and so
 * the messages each has in flight.
 *
 * Targets (issues 50 and 61): the pass at ≥ 0.8 of plain nodemailer's rate
 * with as many messages in flight as the pass has; at a latency, 100,000
 * messages within 15 minutes; the dashboard's p99 during the pass within 1.5×
 * its idle p99; peak RSS under 400 MiB. Plain nodemailer one message at a
 * time, and the floor the acceptance windows set
 * (bench/support/plain-nodemailer.ts), are printed beside. SCALE_SENDERS=2000 (for example) runs a smaller copy.
 * Needs `npm run build` first (the npm script does it). MiB: 1,048,576 bytes.
 */
const SENDERS = Number(process.env.SCALE_SENDERS) || 20_000;
const RECIPIENTS_PER_FOLDER = 5;
const MESSAGE_COUNT = SENDERS * RECIPIENTS_PER_FOLDER;
const TIME_ZONES = [
  "Europe/London",
  "America/New_York",
  "Asia/Tokyo",
  "Australia/Sydney",
  "America/Los_Angeles",
];
/** The relay's answer to each end of DATA, late by this much (bench/support/count-sink.ts). */
const LATENCY_MS = Number(process.env.SINK_LATENCY_MS) || 0;
/** Plain nodemailer's sample: enough for a steady rate, less than the pass at full scale. */
const BASELINE_MESSAGES = Math.min(MESSAGE_COUNT, 3_000);
/** One message at a time waits out the latency each time: 200 of them at a latency. */
const ONE_AT_A_TIME_MESSAGES =
  LATENCY_MS > 0 ? Math.min(200, BASELINE_MESSAGES) : BASELINE_MESSAGES;
const WARMUP_MESSAGES = 200;
/** The dashboard's load: a steady stream of signed-in views, as people use the site. */
const DASHBOARD_RATE = 20;
const DASHBOARD_CONNECTIONS = 2;
/**
 * The idle measurement the pass's p99 is held to: 600 views. Over 10 s (200
 * views) its p99 was the second-slowest view, and it moved widely between
 * runs of the same code (docs/performance.md, bench:scale).
 */
const IDLE_S = 30;
/**
 * The server's SMTP connections (SMTP_MAX_CONNECTIONS), and so the pass's ledgers at once and
 * acceptance windows, and plain nodemailer's messages in flight.
 */
const IN_FLIGHT = Number(process.env.SMTP_MAX_CONNECTIONS) || 16;
/** Issues 50 and 61: against plain nodemailer with as many messages in flight as the pass. */
const TARGET_RATIO = 0.8;
/** Issue 61: every due copy sent within a quarter of an hour, at a relay's latency. */
const TARGET_PASS_S = 15 * 60;
const TARGET_P99_FACTOR = 1.5;
const MEMORY_TARGET_MIB = 400;
/** A pass that delivers nothing new for this long has stalled. */
const STALL_MS = 60_000;
const MAIL_FROM_ADDRESS = "hello@thoughtfully.example";
const MIB = 1024 * 1024;

const recipientEmail = (sender: number, index: number) => `s${sender}-r${index}@example.net`;

function progress(step: string) {
  console.error(`[bench:scale] ${step}…`);
}

type LoopDelay = { p50: number; p90: number; p99: number; max: number; samples: number };

/** The event-loop delays since the last call, from the server's preloaded monitor. */
async function loopDelay(server: Server, file: string): Promise<LoopDelay> {
  fs.rmSync(file, { force: true });
  server.child.kill("SIGUSR2");
  const deadline = Date.now() + 10_000;
  while (!fs.existsSync(file)) {
    if (Date.now() > deadline) throw new Error("The server's event-loop monitor did not answer");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return JSON.parse(fs.readFileSync(file, "utf8")) as LoopDelay;
}

/** Steady dashboard views until `stop` is called; resolves with autocannon's result. */
function dashboardLoad(url: string, cookie: string, marker: string, durationS?: number) {
  let instance: autocannon.Instance | undefined;
  const result = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      {
        url,
        headers: { cookie },
        connections: DASHBOARD_CONNECTIONS,
        overallRate: DASHBOARD_RATE,
        duration: durationS ?? 3_600,
        timeout: 10,
        verifyBody: (body) => String(body).includes(marker),
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
  });
  return {
    stop: () => instance?.stop(),
    result: result.then((finished) => {
      const problems = [
        finished.non2xx > 0 && `${finished.non2xx} non-2xx responses`,
        finished.errors > 0 && `${finished.errors} connection errors`,
        finished.timeouts > 0 && `${finished.timeouts} timeouts`,
        finished.mismatches > 0 && `${finished.mismatches} pages without "${marker}"`,
      ].filter(Boolean);
      if (problems.length > 0) throw new Error(`dashboard load: ${problems.join(", ")}`);
      return finished;
    }),
  };
}

async function main({ dataDir, killOnTimeout }: Run) {
  requireBuild();
  const databasePath = path.join(dataDir, "app.db");
  const loopFile = path.join(dataDir, "loop-delay.json");
  let sink: Sink | null = null;
  let server: Server | null = null;
  const closers: (() => void | Promise<void>)[] = [];
  try {
    const sinkProcess = await startSink();
    sink = sinkProcess;
    killOnTimeout(sinkProcess.child);
    const smtpUrl = `smtp://127.0.0.1:${sink.port}`;
    Object.assign(process.env, {
      NODE_ENV: "production",
      DATABASE_PATH: databasePath,
      STORAGE_DIR: path.join(dataDir, "uploads"),
      OUTBOX_DIR: path.join(dataDir, "outbox"),
      SESSION_SECRET: crypto.randomBytes(32).toString("hex"),
      APP_URL: "https://thoughtfully.example",
      SCHEDULER: "off",
      SMTP_URL: smtpUrl,
      SMTP_MAX_CONNECTIONS: String(IN_FLIGHT),
      MAIL_FROM: `Thoughtfully <${MAIL_FROM_ADDRESS}>`,
    });
    delete process.env.SMTP_MAX_MESSAGES_PER_SECOND;
    const [
      { db, writeTransactionWithAsyncFsync },
      { createAcceptanceTurns },
      schema,
      newsletter,
      links,
      mailer,
      { eq, inArray, sql },
    ] = await Promise.all([
      import("~/platform/db.server"),
      import("~/modules/sending/acceptance-turn.server"),
      import("#db/schema"),
      import("#emails/newsletter.server"),
      import("~/modules/recipients/recipient-links.server"),
      import("~/platform/mailer.server"),
      import("drizzle-orm"),
    ]);
    closers.push(() => {
      db.$client.close();
    });

    // --- Seed: the senders, far from due until the pass's minute is chosen.
    progress(`seeding ${SENDERS} senders, ${MESSAGE_COUNT} recipients`);
    const seedStarted = performance.now();
    const later = new Date(Date.now() + 7 * 24 * 3_600_000);
    const folderIds = db.transaction((tx) =>
      Array.from({ length: SENDERS }, (_, sender) => {
        const user = createUser(tx, {
          email: `sender${sender}@example.com`,
          firstName: "Sender",
          lastName: String(sender),
          emailVerified: true,
          timeZone: TIME_ZONES[sender % TIME_ZONES.length]!,
        });
        const folder = createFolder(tx, user.id, {
          name: "Family",
          recipients: Array.from({ length: RECIPIENTS_PER_FOLDER }, (_, index) => ({
            name: `Reader ${index + 1}`,
            email: recipientEmail(sender, index),
          })),
          personalSignoff: "Love, me",
          frequency: "weekly",
          nextSendAt: later,
        });
        tx.insert(schema.contentItems)
          .values([
            {
              folderId: folder.id,
              type: "link",
              title: `An article worth reading, for sender ${sender}`,
              urls: [`https://example.com/articles/${sender}`],
              addComment: true,
              commentText: "Made me think of you. The last paragraph especially.",
              responseExpectation: "not_expecting",
              sortOrder: 0,
            },
            {
              folderId: folder.id,
              type: "musing",
              title: "The garden",
              note: "The tomatoes are finally turning red. Come and pick some next time you visit.",
              sortOrder: 1,
            },
          ])
          .run();
        return folder.id;
      }),
    );
    const { user: viewer, firstFolder } = seedDashboard(databasePath);
    const cookie = await signIn(databasePath, viewer.id);
    const seedSeconds = (performance.now() - seedStarted) / 1000;

    // --- Plain nodemailer: the first folder's newsletter, rendered once, sent again and again.
    progress(`seeded in ${seedSeconds.toFixed(1)} s; plain nodemailer`);
    const folder = db
      .select()
      .from(schema.folders)
      .where(eq(schema.folders.id, folderIds[0]!))
      .get()!;
    const sender = db.select().from(schema.users).where(eq(schema.users.id, folder.userId)).get()!;
    const items = db
      .select()
      .from(schema.contentItems)
      .where(eq(schema.contentItems.folderId, folder.id))
      .all();
    const rendered = newsletter.renderNewsletter({ folder, sender, items });
    const to = recipientEmail(0, 0);
    const bodies = newsletter.personalize(rendered, {
      email: to,
      unsubscribeUrl: links.compactUnsubscribeUrl(folder.id, to),
    });
    const prerendered: Mail.Options = {
      from: { name: "Sender 0 via Thoughtfully", address: MAIL_FROM_ADDRESS },
      to,
      replyTo: sender.email,
      subject: rendered.subject,
      html: bodies.html,
      text: bodies.text,
      headers: {
        "List-Unsubscribe": `<${links.unsubscribeUrl(folder.id, to)}>, <${links.unsubscribeMailto(folder.id, to)}>`,
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
      },
      messageId: "<bench-scale-baseline@thoughtfully.example>",
    };
    const transport: Transporter = mailer.createSmtpTransport(smtpUrl);
    closers.push(() => transport.close());
    db.$client.exec("create table bench_marks (id integer primary key, at integer)");
    const plain = plainNodemailer(transport, prerendered, {
      turn: createAcceptanceTurns(IN_FLIGHT).turn,
      mark: () =>
        writeTransactionWithAsyncFsync((tx) =>
          tx.run(sql`insert into bench_marks (at) values (${Date.now()})`),
        ),
    });
    const rateOf = async (send: () => Promise<void>, messages = BASELINE_MESSAGES) => {
      await sinkProcess.request({ type: "reset" });
      const started = performance.now();
      await send();
      return messages / ((performance.now() - started) / 1000);
    };
    const loadAtStart = os.loadavg()[0]!;
    await plain.inFlight(WARMUP_MESSAGES, IN_FLIGHT);
    const plainRate = await rateOf(
      () => plain.oneAtATime(ONE_AT_A_TIME_MESSAGES),
      ONE_AT_A_TIME_MESSAGES,
    );
    const plainBytes = (await sink.request({ type: "stats" })).bytes / ONE_AT_A_TIME_MESSAGES;
    const inFlightRate = await rateOf(() => plain.inFlight(BASELINE_MESSAGES, IN_FLIGHT));
    const floorRate = await rateOf(() => plain.inTurns(BASELINE_MESSAGES, IN_FLIGHT));
    transport.close();

    // --- The production server, its scheduler on.
    progress(
      `plain nodemailer: ${plainRate.toFixed(0)} msg/s, ${inFlightRate.toFixed(0)} with ${IN_FLIGHT} in flight; starting the server`,
    );
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server = startServer(
      port,
      dataDir,
      { SCHEDULER: "on", SMTP_URL: smtpUrl, LOOP_MONITOR_FILE: loopFile },
      ["--import", path.join(repoRoot, "bench", "support", "loop-monitor.mjs")],
    );
    killOnTimeout(server.child);
    await waitForHealth(base, server);
    const dashboardUrl = `${base}/folders/${firstFolder.id}`;
    await dashboardLoad(dashboardUrl, cookie, firstFolder.name, 2).result;

    // --- The minute every folder comes due: the next one with time for the idle measurement.
    const dueAt = new Date(Math.ceil((Date.now() + (IDLE_S + 5) * 1000) / 60_000) * 60_000);
    // A second before the tick: a timer may fire a millisecond early, and then nothing would be due.
    db.update(schema.folders)
      .set({ nextSendAt: new Date(dueAt.getTime() - 1_000) })
      .where(inArray(schema.folders.id, folderIds))
      .run();
    progress(`idle dashboard for ${IDLE_S} s; every folder due at ${dueAt.toISOString()}`);
    await loopDelay(server, loopFile);
    const idle = await dashboardLoad(dashboardUrl, cookie, firstFolder.name, IDLE_S).result;
    const idleLoop = await loopDelay(server, loopFile);
    const idleRss = procStatusBytes(server.child.pid!, "VmRSS");
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, dueAt.getTime() - Date.now())));

    // --- The pass, with the dashboard under load; the server's RSS sampled every 200 ms.
    progress(`scheduler pass (${MESSAGE_COUNT} messages)`);
    await sink.request({ type: "reset" });
    await loopDelay(server, loopFile);
    const during = dashboardLoad(dashboardUrl, cookie, firstFolder.name);
    let peakRss = idleRss;
    let delivered = 0;
    let opened = 0;
    let lastProgressAt = Date.now();
    const ledgerCount = () =>
      db.select({ n: sql<number>`count(*)` }).from(schema.sendLedger).get()!.n;
    while (delivered < MESSAGE_COUNT) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      peakRss = Math.max(peakRss, procStatusBytes(server.child.pid!, "VmRSS"));
      const stats = await sink.request({ type: "stats" });
      // Opening every ledger comes first: that is progress too.
      const nowOpened = ledgerCount();
      if (stats.messages > delivered || nowOpened > opened) lastProgressAt = Date.now();
      delivered = stats.messages;
      opened = nowOpened;
      if (Date.now() - lastProgressAt > STALL_MS) {
        during.stop();
        throw new Error(
          `the pass stalled at ${delivered} of ${MESSAGE_COUNT} messages; the server's stderr:\n${server.stderr()}`,
        );
      }
    }
    const passSeconds = (Date.now() - dueAt.getTime()) / 1000;
    const passLoop = await loopDelay(server, loopFile);
    during.stop();
    const busy = await during.result;
    // The ledgers finish after their last message: until nothing is left sending.
    const sending = () =>
      db
        .select({ n: sql<number>`count(*)` })
        .from(schema.sendLedger)
        .where(eq(schema.sendLedger.status, "sending"))
        .get()!.n;
    const finishDeadline = Date.now() + 30_000;
    while (sending() > 0 && Date.now() < finishDeadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const serverPeak = procStatusBytes(server.child.pid!, "VmHWM");
    const final = await sink.request({ type: "stats", list: true });

    // --- Exactly once.
    const problems: string[] = [];
    const counts = new Map<string, number>();
    for (const email of final.list ?? []) counts.set(email, (counts.get(email) ?? 0) + 1);
    let missing = 0;
    let repeated = 0;
    for (let senderIndex = 0; senderIndex < SENDERS; senderIndex++) {
      for (let index = 0; index < RECIPIENTS_PER_FOLDER; index++) {
        const copies = counts.get(recipientEmail(senderIndex, index)) ?? 0;
        if (copies === 0) missing += 1;
        if (copies > 1) repeated += 1;
        counts.delete(recipientEmail(senderIndex, index));
      }
    }
    if (missing || repeated || counts.size || final.messages !== MESSAGE_COUNT) {
      problems.push(
        `the sink got ${final.messages} messages: ${missing} recipients got none, ${repeated} more than one, ${counts.size} addresses were not recipients (expected ${MESSAGE_COUNT}, each once)`,
      );
    }
    const count = (query: { get(): { n: number } | undefined }) => query.get()?.n ?? 0;
    const ledgers = (status: "sent" | "sending" | "failed" | "skipped") =>
      count(
        db
          .select({ n: sql<number>`count(*)` })
          .from(schema.sendLedger)
          .where(eq(schema.sendLedger.status, status)),
      );
    const sentLedgers = ledgers("sent");
    if (sentLedgers !== SENDERS || ledgers("sending") || ledgers("failed")) {
      problems.push(
        `ledgers: ${sentLedgers} sent, ${ledgers("sending")} sending, ${ledgers("failed")} failed (expected ${SENDERS} sent)`,
      );
    }
    const pending = count(
      db
        .select({ n: sql<number>`count(*)` })
        .from(schema.sendLedgerRecipients)
        .where(sql`${schema.sendLedgerRecipients.status} <> 'sent'`),
    );
    if (pending) problems.push(`${pending} ledger recipients not marked sent`);
    const unsent = count(
      db
        .select({ n: sql<number>`count(*)` })
        .from(schema.contentItems)
        .where(
          sql`${schema.contentItems.sentAt} is null and ${inArray(schema.contentItems.folderId, folderIds)}`,
        ),
    );
    if (unsent) problems.push(`${unsent} items of the due folders not marked sent`);
    const stillDue = count(
      db
        .select({ n: sql<number>`count(*)` })
        .from(schema.folders)
        .where(sql`${schema.folders.nextSendAt} < ${dueAt.getTime()}`),
    );
    if (stillDue) problems.push(`${stillDue} folders still due (their clocks did not move on)`);

    // --- Report.
    const passRate = MESSAGE_COUNT / passSeconds;
    const ratio = passRate / inFlightRate;
    const p99Factor = busy.latency.p99 / idle.latency.p99;
    const peakMiB = serverPeak / MIB;
    const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
    const [loadAverage] = os.loadavg();
    console.log(
      `Node ${process.version}, ${os.cpus().length} CPUs, load average ${loadAtStart.toFixed(1)} at the start and ${loadAverage!.toFixed(1)} at the end. The sink answers each end of DATA ${LATENCY_MS} ms late (SINK_LATENCY_MS); ${IN_FLIGHT} SMTP connections (SMTP_MAX_CONNECTIONS). ${SENDERS} senders in ${TIME_ZONES.length} time zones, one weekly folder each (a link, a musing), ${RECIPIENTS_PER_FOLDER} recipients each: ${MESSAGE_COUNT} messages (${(plainBytes / 1024).toFixed(1)} KB each), all due at ${dueAt.toISOString()}. Seeded in ${seedSeconds.toFixed(1)} s.`,
    );
    console.log(
      `The production server (SCHEDULER=on, heap capped at 256 MB) sends them with its own scheduler into an SMTP sink on loopback; the dashboard (/folders/:id, 50 items) is asked for ${DASHBOARD_RATE} times a second over ${DASHBOARD_CONNECTIONS} connections, ${IDLE_S} s idle, then throughout the pass.`,
    );
    console.log("");
    console.log(
      `plain nodemailer (createSmtpTransport, ${BASELINE_MESSAGES} messages each, ${ONE_AT_A_TIME_MESSAGES} one at a time): ${plainRate.toFixed(0)} msg/s one at a time, ${inFlightRate.toFixed(0)} msg/s with ${IN_FLIGHT} in flight, ${floorRate.toFixed(0)} msg/s with ${IN_FLIGHT} in flight each in its own acceptance window, each mark fsynced (the floor exactly once sets: ${(floorRate / inFlightRate).toFixed(2)} of ${IN_FLIGHT} in flight)`,
    );
    console.log(
      `scheduler pass: ${MESSAGE_COUNT} messages in ${passSeconds.toFixed(1)} s from the due minute: ${passRate.toFixed(0)} msg/s`,
    );
    console.log(
      `event-loop delay, idle:        p50 ${idleLoop.p50.toFixed(1)} ms, p90 ${idleLoop.p90.toFixed(1)} ms, p99 ${idleLoop.p99.toFixed(1)} ms, max ${idleLoop.max.toFixed(1)} ms`,
    );
    console.log(
      `event-loop delay, during pass: p50 ${passLoop.p50.toFixed(1)} ms, p90 ${passLoop.p90.toFixed(1)} ms, p99 ${passLoop.p99.toFixed(1)} ms, max ${passLoop.max.toFixed(1)} ms`,
    );
    console.log(
      `dashboard, idle:        p50 ${idle.latency.p50.toFixed(1)} ms, p99 ${idle.latency.p99.toFixed(1)} ms (${idle.requests.total} requests)`,
    );
    console.log(
      `dashboard, during pass: p50 ${busy.latency.p50.toFixed(1)} ms, p99 ${busy.latency.p99.toFixed(1)} ms (${busy.requests.total} requests)`,
    );
    console.log(
      `server RSS: ${(idleRss / MIB).toFixed(0)} MiB idle, ${(peakRss / MIB).toFixed(0)} MiB at most during the pass (sampled every 200 ms); peak of the process (VmHWM) ${peakMiB.toFixed(0)} MiB`,
    );
    console.log("");
    console.log(
      `at ${LATENCY_MS} ms: pass / plain nodemailer with ${IN_FLIGHT} in flight: ${ratio.toFixed(2)} of the rate (target ≥ ${TARGET_RATIO}) ${verdict(ratio >= TARGET_RATIO)}; ${(passRate / floorRate).toFixed(2)} of the floor, ${(passRate / plainRate).toFixed(2)} of one at a time`,
    );
    // 100,000 copies in a quarter of an hour: at a smaller size, the same rate (6,667 a minute).
    const projectedS = (passSeconds / MESSAGE_COUNT) * 100_000;
    console.log(
      `100,000 copies at this rate: ${(projectedS / 60).toFixed(1)} min${MESSAGE_COUNT === 100_000 ? "" : ` (projected from ${MESSAGE_COUNT})`} (target ≤ ${TARGET_PASS_S / 60} min) ${verdict(projectedS <= TARGET_PASS_S)}`,
    );
    console.log(
      `dashboard p99 during the pass / idle: ${p99Factor.toFixed(2)}× (target ≤ ${TARGET_P99_FACTOR}×) ${verdict(p99Factor <= TARGET_P99_FACTOR)}`,
    );
    console.log(
      `server peak memory: ${peakMiB.toFixed(0)} MiB (target < ${MEMORY_TARGET_MIB} MiB) ${verdict(peakMiB < MEMORY_TARGET_MIB)}`,
    );
    if (problems.length > 0)
      throw new Error(`the send was not exactly once:\n  ${problems.join("\n  ")}`);
    console.log(
      `checked: each of the ${MESSAGE_COUNT} recipients got exactly one message and nobody else got any; ${SENDERS} ledgers sent, none pending; every item marked sent; every folder moved on`,
    );
  } finally {
    if (server) await stopServer(server);
    for (const close of closers.reverse()) {
      try {
        await close();
      } catch (error) {
        console.error("cleanup:", error);
      }
    }
    if (sink) await stopSink(sink);
  }
}

await runBenchmark("bench:scale", 30 * 60 * 1000, main);
