/**
 * The relay's own limits, kept before a message starts (so never inside an
 * acceptance window, which opens only at a message's end): a ceiling of
 * SMTP_MAX_MESSAGES_PER_SECOND, each start spaced from the one before, and a
 * pause after a throttling answer, 1 s and doubling to a minute while the
 * relay keeps throttling, ended by the first message it takes.
 * docs/decisions/0247-one-acceptance-window-per-connection.md
 */

/** How long sending waits after a throttling answer; doubled at each one after a pause. */
export const THROTTLE_PAUSE_MS = { first: 1_000, longest: 60_000 } as const;

/** What nodemailer's SMTP errors carry (lib/smtp-connection). */
type SmtpFailure = { responseCode?: number; response?: string };

/** Words relays throttle with: SES's "454 Throttling failure: Maximum sending rate exceeded". */
const THROTTLING_WORDS = /throttl|\brate\b|too many|slow down/i;

/**
 * A relay asking us to slow down: 421 (it closes the connection for now), or
 * any other 4xx whose words say it is about our rate. A 4xx about something
 * else (a greylisted message, a mailbox busy) is left to the copy's retries.
 */
export function isThrottling(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { responseCode, response } = error as SmtpFailure;
  if (responseCode === undefined || responseCode < 400 || responseCode >= 500) return false;
  return responseCode === 421 || THROTTLING_WORDS.test(response ?? "");
}

export type RelayPace = {
  /** Resolves when the next message may start. */
  ready(): Promise<void>;
  /** The relay throttled a message: sending pauses. */
  throttled(words: string): void;
  /** The relay took a message. */
  taken(): void;
};

export function createRelayPace({
  perSecond,
  clock = Date.now,
  sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
  log = (line: string) => console.warn(line),
}: {
  perSecond?: number;
  clock?: () => number;
  sleep?: (ms: number) => Promise<void>;
  log?: (line: string) => void;
}): RelayPace {
  const spacingMs = perSecond ? 1000 / perSecond : 0;
  let nextStartAt = 0;
  let pausedUntil = 0;
  let pauseMs = 0;

  return {
    async ready() {
      if (spacingMs > 0) {
        // Each start takes the next slot, so messages waiting together go one spacing apart.
        const now = clock();
        const startAt = Math.max(now, nextStartAt);
        nextStartAt = startAt + spacingMs;
        if (startAt > now) await sleep(startAt - now);
      }
      for (let now = clock(); now < pausedUntil; now = clock()) await sleep(pausedUntil - now);
    },
    throttled(words) {
      const now = clock();
      // Messages already under way when the pause began meet the same answer: one pause for them.
      if (now < pausedUntil) return;
      pauseMs = pauseMs
        ? Math.min(pauseMs * 2, THROTTLE_PAUSE_MS.longest)
        : THROTTLE_PAUSE_MS.first;
      pausedUntil = now + pauseMs;
      log(`[relay] throttled: "${words}"; sending waits ${pauseMs / 1000} s`);
    },
    taken() {
      if (clock() >= pausedUntil) pauseMs = 0;
    },
  };
}
