/**
 * Acceptance windows: at most `windows` messages of this thread between the
 * end of their data (SMTP's final ".", after which the server may accept it)
 * and their durable "sent" mark, one for each of the thread's SMTP connections
 * (SMTP_MAX_CONNECTIONS). Messages are built and transferred side by side;
 * each waits for a window only to send that last byte, and gives it back once
 * its mark is on disk (or its failure recorded). So a crash or a power cut
 * leaves at most that many messages whose fate the ledger does not know, each
 * resent with its own Message-ID.
 * docs/decisions/0247-one-acceptance-window-per-connection.md (amending
 * docs/decisions/0076-sending-on-several-connections.md, which had one).
 *
 * Windows go in the order messages reach their end, not the order they
 * started: a large message still being written holds up nobody.
 */
export type AcceptanceTurn = {
  /** Resolves when this message may send its last byte; a turn given back rejects. */
  take(): Promise<void>;
  /** Gives the window to the next message waiting; cancels a wait not yet served. */
  giveBack(): void;
};

export function createAcceptanceTurns(windows = 1) {
  if (!Number.isInteger(windows) || windows < 1) {
    throw new Error(`Acceptance windows must be a whole number from 1, not ${windows}`);
  }
  let held = 0;
  const waiting: { serve: () => void; refuse: (error: Error) => void }[] = [];

  function turn(): AcceptanceTurn {
    let state: "new" | "waiting" | "holding" | "given back" = "new";
    let place: (typeof waiting)[number] | undefined;
    return {
      take() {
        if (state === "holding") return Promise.resolve();
        if (state === "given back" || state === "waiting") {
          return Promise.reject(new Error(`This message's turn is ${state}`));
        }
        if (held < windows) {
          held += 1;
          state = "holding";
          return Promise.resolve();
        }
        state = "waiting";
        return new Promise<void>((resolve, reject) => {
          place = {
            serve: () => {
              state = "holding";
              resolve();
            },
            refuse: reject,
          };
          waiting.push(place);
        });
      },
      giveBack() {
        if (state === "waiting" && place) {
          waiting.splice(waiting.indexOf(place), 1);
          place.refuse(new Error("The message was given up before its turn"));
        }
        if (state === "holding") {
          // The window passes straight to the next message waiting, or becomes free.
          const next = waiting.shift();
          if (next) next.serve();
          else held -= 1;
        }
        state = "given back";
      },
    };
  }

  return {
    turn,
    /** Messages waiting for a window (for tests). */
    get waiting() {
      return waiting.length;
    },
    /** Windows held now (for tests). */
    get held() {
      return held;
    },
  };
}
