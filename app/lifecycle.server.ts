import { Cron } from "croner";
import { backupDatabase } from "#db/backup";
import { takeAnalyticsSnapshot } from "~/modules/admin/admin-metrics.server";
import { gatherAnswers } from "~/modules/answers/answer-mail.server";
import { previewPassSettled, requestPreviewPass } from "~/modules/items/link-preview-queue.server";
import { requestVideoPass } from "~/modules/items/video-preparation-queue.server";
import { pruneExpiredRecords, sweepOrphanFiles } from "~/modules/jobs/maintenance.server";
import { canonicalizeStoredAddresses } from "~/modules/recipients/addresses.server";
import { startSmtpReceiver } from "~/modules/save-by-email/smtp-receiver.server";
import {
  runSchedulerPassOnItsThread,
  stopSchedulerThread,
} from "~/modules/sending/scheduler-thread.server";
import { remindWaitingItems } from "~/modules/sending/waiting-reminders.server";
import { sendWelcomes } from "~/modules/sending/welcomes.server";
import { expireDrafts } from "~/modules/uploads/upload-drafts.server";
import { waitForBackgroundWork } from "~/platform/background-work.server";
import { db, waitBrieflyForTheWriteLock } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import { stopMediaTools } from "~/platform/ffmpeg.server";
import { closeMailer } from "~/platform/mailer.server";
import { removeFoldersOfDeadProcesses } from "~/platform/process-folder.server";
import { isPrimaryAtStart, onPrimaryOnly } from "~/platform/replication.server";
import { singleton } from "~/platform/singleton.server";

const SHUTDOWN_DEADLINE_MS = 25_000;

type ShutdownHook = () => void | Promise<void>;

/**
 * The server process's background work and its orderly end. remix-serve closes
 * the HTTP server on SIGTERM/SIGINT (it waits for requests in flight); here we
 * stop the timers, wait for the work they started, and close the database once
 * nothing else is left, so the WAL is checkpointed and nothing is cut short.
 */
class ServerProcess {
  private readonly hooks: ShutdownHook[] = [];
  private stopping = false;

  start() {
    // What a server killed outright left (its spool, a transcode's files) is removed before any new work.
    const removed = removeFoldersOfDeadProcesses();
    if (removed.length > 0) {
      console.info(`[server] removed the temporary folders of ${removed.length} ended processes`);
    }
    // Before the first send: the scheduler compares addresses in their canonical form.
    // A replica's copy is read-only; the primary rewrites them for every machine.
    if (isPrimaryAtStart()) canonicalizeStoredAddresses();
    // Start-up's writes above wait for a lock as long as any command's; from here
    // on, a write of this thread holds up every request while it waits.
    waitBrieflyForTheWriteLock();
    if (env.SCHEDULER === "on") this.startJobs();
    // Saving writes: only the primary takes mail (a replica's webhook requests are replayed there).
    if (isPrimaryAtStart()) {
      startSmtpReceiver().then(
        (stop) => stop && this.onShutdown(stop),
        (error) => console.error("[smtp] receiver did not start", error),
      );
    }
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      process.once(signal, () => void this.shutdown(signal));
    }
    process.once("beforeExit", () => this.closeDatabase());
  }

  onShutdown(hook: ShutdownHook) {
    this.hooks.push(hook);
  }

  get isStopping() {
    return this.stopping;
  }

  private startJobs() {
    // Every job runs only on the primary and never while a restore holds the
    // scheduler (app/platform/replication.server.ts), checked at each tick.
    const dailyBackup = new Cron(
      "0 3 * * *",
      {
        timezone: "UTC",
        protect: true,
        catch: (error) => console.error("[backup] failed", error),
      },
      onPrimaryOnly(async () => {
        const file = await backupDatabase(env.DATABASE_PATH, new Date(), env.BACKUP_DIR);
        console.info(`[backup] wrote ${file}`);
      }),
    );
    const orphanSweep = new Cron(
      "30 3 * * *",
      { timezone: "UTC", protect: true },
      onPrimaryOnly(async () => {
        const expired = await expireDrafts();
        const removed = await sweepOrphanFiles();
        console.info(`[storage] removed ${expired} expired drafts, ${removed} unreferenced files`);
        const pruned = pruneExpiredRecords();
        console.info(
          `[maintenance] removed ${pruned.securityEventsRemoved} old security events, ${pruned.sessionsRemoved} expired sessions`,
        );
      }),
    );
    // The admin dashboard's charts: one analytics_snapshots row per UTC day,
    // written at start (so today has a point) and again near the day's end.
    const snapshot = onPrimaryOnly(() => {
      const row = takeAnalyticsSnapshot(new Date());
      console.info(`[analytics] snapshot for ${row.snapshotDate}`);
    });
    const dailySnapshot = new Cron(
      "55 23 * * *",
      {
        timezone: "UTC",
        protect: true,
        catch: (error) => console.error("[analytics] snapshot failed", error),
      },
      snapshot,
    );
    snapshot().catch((error) => console.error("[analytics] snapshot failed", error));
    let pass: Promise<void> = Promise.resolve();
    // protect: a pass still running when the next minute starts is not overlapped.
    const sender = new Cron("* * * * *", { protect: true }, () => {
      pass = onPrimaryOnly(runSchedulerPassOnItsThread)().then(
        () => undefined,
        (error) => console.error("[scheduler] pass failed", error),
      );
      return pass;
    });
    // A pass at start too: a send a crash left half done is resumed now, not at the next minute.
    void sender.trigger();
    // Link previews a save asked for are fetched at once; this picks up what a
    // crash, a retry's wait or a rate limit left pending.
    const previews = new Cron(
      "* * * * *",
      { protect: true },
      onPrimaryOnly(() => requestPreviewPass()),
    );
    // Videos a save asked to prepare start at once; this picks up a retry's wait,
    // and at start what a restart stopped mid-transcode (its lease is this process's).
    const videos = new Cron(
      "* * * * *",
      { protect: true },
      onPrimaryOnly(() => requestVideoPass()),
    );
    void onPrimaryOnly(async () => {
      const { resumeInterruptedVideos } = await import("~/modules/items/video-preparation.server");
      resumeInterruptedVideos();
      requestVideoPass();
    })().catch((error) => console.error("[videos] resuming failed", error));
    // Recipients' answers to their senders: a note at once within the minute, the
    // day's gathering at the first run from 18:00 in each sender's zone
    // (docs/decisions/0166-answers-reach-the-sender-by-mail.md).
    let answerRun: Promise<void> = Promise.resolve();
    const answerMail = new Cron("* * * * *", { protect: true }, () => {
      answerRun = onPrimaryOnly(() => gatherAnswers())().then(
        (result) => {
          if (result?.messages)
            console.info(`[answers] sent ${result.messages} e-mails to senders`);
        },
        (error) => console.error("[answers] run failed", error),
      );
      return answerRun;
    });
    // At start too: a digest a crash left pending goes now, not at the next minute.
    void answerMail.trigger();
    // The day before a folder's send, the items still waiting for a note, from
    // 09:00 in each owner's zone (docs/decisions/0198-waiting-items-reminder.md).
    // Every five minutes, as zones' mornings come round; each folder occurrence
    // gets one e-mail at most. The same run tells a sender whose send went by
    // with only videos not prepared (docs/decisions/0220-a-send-held-back-by-its-videos-is-told.md),
    // and one whose folder's last recipient left, if the opt-out's own try did not
    // (docs/decisions/0249-the-sender-told-when-the-last-recipient-leaves.md).
    let reminderRun: Promise<void> = Promise.resolve();
    const waitingReminder = new Cron("*/5 * * * *", { protect: true }, () => {
      reminderRun = onPrimaryOnly(() => remindWaitingItems())().then(
        (result) => {
          if (result?.messages)
            console.info(`[waiting] sent ${result.messages} reminders of items waiting`);
        },
        (error) => console.error("[waiting] run failed", error),
      );
      return reminderRun;
    });
    // At start too: a reminder a crash left pending goes now.
    void waitingReminder.trigger();
    // Welcomes a save could not send at once (a crash, a retry's wait, a rate
    // limit, a sender not yet verified): docs/decisions/0208-a-welcome-before-the-first-issue.md.
    let welcomeRun: Promise<void> = Promise.resolve();
    const welcomes = new Cron("* * * * *", { protect: true }, () => {
      welcomeRun = onPrimaryOnly(() => sendWelcomes())().then(
        (messages) => {
          if (messages) console.info(`[welcome] sent ${messages} welcomes`);
        },
        (error) => console.error("[welcome] run failed", error),
      );
      return welcomeRun;
    });
    void welcomes.trigger();
    this.onShutdown(async () => {
      sender.stop();
      answerMail.stop();
      waitingReminder.stop();
      welcomes.stop();
      dailyBackup.stop();
      orphanSweep.stop();
      dailySnapshot.stop();
      previews.stop();
      // A transcode may run for minutes: stopped, not awaited; the next start does it again.
      videos.stop();
      stopMediaTools();
      // A send in flight finishes; whatever it leaves pending is resumed by the next start.
      await pass;
      await answerRun;
      await reminderRun;
      await welcomeRun;
      await stopSchedulerThread();
      await previewPassSettled();
    });
  }

  private async shutdown(signal: string) {
    if (this.stopping) return;
    this.stopping = true;
    console.info(`[server] ${signal} received: finishing work in flight`);
    const deadline = setTimeout(() => {
      console.error("[server] shutdown deadline passed, exiting");
      this.closeDatabase();
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    deadline.unref();
    await Promise.allSettled(this.hooks.map((hook) => hook()));
    await waitForBackgroundWork();
    await closeMailer();
  }

  private closeDatabase() {
    if (db.$client.open) db.$client.close();
  }
}

const serverProcess = singleton("server-process", () => new ServerProcess());
const started = singleton("server-process-started", () => ({ value: false }));

export function startServerProcess() {
  if (started.value) return;
  started.value = true;
  serverProcess.start();
}

export const onShutdown = (hook: ShutdownHook) => serverProcess.onShutdown(hook);
