import { DomUtils, parseDocument } from "htmlparser2";
import { describe, expect, test } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import {
  launchBuiltServer,
  startSmtpSink,
  thisFilesDataDir,
  waitUntil,
} from "../support/integration";
import { routeTable } from "../support/route-table";

/**
 * Issue 45's reminder of items waiting for a note, over a real SMTP server on
 * loopback, read back with mailparser: it arrives once, the day before the
 * send, and each of its links opens that item's edit sheet for the signed-in
 * sender (and asks anyone else to log in first). The app's modules read
 * SMTP_URL when first imported, so they are imported after the sink starts.
 */
const sink = await startSmtpSink();
const [{ db }, schema, drizzle, reminders, schedule, session, editRoute] = await Promise.all([
  import("~/platform/db.server"),
  import("#db/schema"),
  import("drizzle-orm"),
  import("~/modules/sending/waiting-reminders.server"),
  import("~/modules/folders/schedule.server"),
  import("~/modules/auth/session.server"),
  import("~/routes/folders+/$folderId.items.$itemId.edit"),
]);

const ORIGIN = "http://localhost:3000";

/** A link saved from the share sheet without its note: it waits. */
const waiting = (title: string, sortOrder: number) => ({
  type: "link" as const,
  title,
  urls: ["https://example.com/"],
  sortOrder,
});

function linksOf(html: string) {
  return DomUtils.findAll(
    (element) => element.name === "a" && DomUtils.textContent(element).startsWith("Add a note"),
    parseDocument(html).children,
  ).map((link) => link.attribs.href!);
}

describe("the day-before reminder of items waiting for a note", () => {
  test("arrives once, and its links open each item's edit sheet for the signed-in sender", async () => {
    const ada = createUser(db, { email: "ada-waits@family.test", timeZone: "Europe/Paris" });
    const sendAt = schedule.zonedTimeToUtc(2026, 12, 1, 0, 1, "Europe/Paris");
    const folder = createFolder(db, ada.id, { name: "Family news", nextSendAt: sendAt });
    const bread = createItem(db, folder.id, waiting("Bread for Sunday", 0));
    createItem(db, folder.id, {
      ...waiting("Beach day", 1),
      addComment: true,
      commentText: "Remember this?",
    });
    const film = createItem(db, folder.id, waiting("A film for Friday", 2));

    // Mon 30 Nov, 09:05 in Paris: the first run from 09:00 the day before.
    const morning = new Date("2026-11-30T08:05:00Z");
    expect((await reminders.remindWaitingItems(morning)).messages).toBe(1);
    expect((await reminders.remindWaitingItems(new Date("2026-11-30T08:10:00Z"))).messages).toBe(0);
    expect((await reminders.remindWaitingItems(new Date("2026-11-30T20:00:00Z"))).messages).toBe(0);

    const [mail, ...more] = sink.to(ada.email);
    expect(more).toHaveLength(0);
    expect(mail!.subject).toBe(`2 items in "Family news" wait for a note before tomorrow's send`);
    expect(mail!.messageId).toMatch(/^<waiting-\d+@localhost>$/);
    expect(mail!.text).not.toContain("Beach day");
    const links = linksOf(mail!.html as string);
    expect(links).toEqual([
      `${ORIGIN}/folders/${folder.id}/items/${bread.id}/edit`,
      `${ORIGIN}/folders/${folder.id}/items/${film.id}/edit`,
    ]);

    // Each link is the app's edit sheet of that item.
    const routes = await routeTable();
    const editSheet = routes.find(
      (route) => route.path === "/folders/:folderId/items/:itemId/edit",
    );
    expect(editSheet?.id).toBe("routes/folders+/$folderId.items.$itemId.edit");
    const cookie = (await session.createSession(ada.id, new Request(ORIGIN), "password")).split(
      ";",
    )[0]!;
    for (const [link, item] of [
      [links[0]!, bread],
      [links[1]!, film],
    ] as const) {
      const [, folderId, itemId] = /\/folders\/(\d+)\/items\/(\d+)\/edit$/.exec(link)!;
      const params = { folderId, itemId };
      const signedIn = await editRoute.loader({
        request: new Request(link, { headers: { Cookie: cookie } }),
        params,
        context: {},
      });
      expect(JSON.stringify(signedIn)).toContain(item.title);

      // No token in the link: signed out, it asks to log in and comes back to the same sheet.
      const signedOut = await editRoute
        .loader({ request: new Request(link), params, context: {} })
        .catch((error: unknown) => error);
      expect(signedOut).toBeInstanceOf(Response);
      const location = new URL((signedOut as Response).headers.get("Location")!, ORIGIN);
      expect(location.pathname).toBe("/login");
      expect(location.searchParams.get("redirectTo")).toBe(new URL(link).pathname);
    }
  });

  test("none when nothing waits", async () => {
    const bea = createUser(db, { email: "bea-noted@family.test", timeZone: "UTC" });
    const folder = createFolder(db, bea.id, {
      nextSendAt: schedule.zonedTimeToUtc(2026, 12, 3, 0, 1, "UTC"),
    });
    createItem(db, folder.id, {
      ...waiting("With its note", 0),
      askQuestion: true,
      questionText: "Shall we go?",
    });
    createItem(db, folder.id); // a musing
    expect((await reminders.remindWaitingItems(new Date("2026-12-02T09:30:00Z"))).messages).toBe(0);
    expect(sink.to(bea.email)).toHaveLength(0);
  });
});

/** A zone where it is now between 09:00 and 22:00, so a send tomorrow there is due for its reminder. */
function zoneInItsDay(now: Date) {
  const zones = ["UTC", "Asia/Tokyo", "Europe/London", "America/New_York", "Pacific/Auckland"];
  return zones.find((zone) => {
    const { hour } = schedule.localParts(now, zone);
    return hour >= 9 && hour < 22;
  })!;
}

describe("the production server killed after claiming the reminders", () => {
  test("the next server's job sends the reminder at its start, once", async () => {
    const now = new Date();
    const zone = zoneInItsDay(now);
    const today = schedule.localParts(now, zone);
    const tomorrow = new Date(Date.UTC(today.year, today.month - 1, today.day + 1));
    const sendAt = schedule.zonedTimeToUtc(
      tomorrow.getUTCFullYear(),
      tomorrow.getUTCMonth() + 1,
      tomorrow.getUTCDate(),
      0,
      1,
      zone,
    );
    const cy = createUser(db, { email: "cy-crash@family.test", timeZone: zone });
    const folder = createFolder(db, cy.id, { name: "Cousins", nextSendAt: sendAt });
    createItem(db, folder.id, waiting("Our trip", 0));
    const row = () =>
      db
        .select()
        .from(schema.waitingReminders)
        .where(drizzle.eq(schema.waitingReminders.folderId, folder.id))
        .get();
    const server = (faultPoint?: string) =>
      launchBuiltServer(
        {
          NODE_ENV: "test",
          APP_URL: process.env.APP_URL!,
          SCHEDULER: "on",
          SMTP_URL: process.env.SMTP_URL!,
          MAIL_FROM: process.env.MAIL_FROM!,
          THOUGHTFULLY_FAULT_POINT: faultPoint ?? "",
        },
        { dataDir: thisFilesDataDir() },
      );

    const crashed = await server("waiting-reminders-claimed");
    expect(await crashed.exited, crashed.stderr()).toEqual({ code: null, signal: "SIGKILL" });
    expect(row()).toMatchObject({ status: "pending", attempts: 0, nextAttemptAt: null });
    expect(sink.to(cy.email)).toHaveLength(0);

    const restarted = await server();
    await waitUntil(() => row()?.status === "sent", 30_000, "the reminder marked sent");
    await restarted.stop();
    const [mail, ...more] = sink.to(cy.email);
    expect(more).toHaveLength(0);
    expect(mail!.subject).toBe(`1 item in "Cousins" waits for a note before tomorrow's send`);
  }, 60_000);
});
