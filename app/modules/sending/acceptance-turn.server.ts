/**
 * At most one message of this process between the end of its data (SMTP's
 * final ".", after which the server may accept it) and its durable "sent"
 * mark. Messages are built and transferred on several connections at once;
 * each waits for its turn only to send that last byte, and gives the turn
 * back once its mark is on disk (or its failure recorded). So a crash or a
 * power cut leaves at most one message whose fate the ledger does not know:
 * the one resend the send ledger allows.
 * docs/decisions/0076-sending-on-several-connections.md.
 *
 * Turns go in the order messages reach their end, not the order they
 * started: a large message still being written holds up nobody.
 */
export type AcceptanceTurn = {
  /** Resolves when this message may send its last byte; a turn given back rejects. */
  take(): Promise<void>;
  /** Gives the turn to the next message waiting; cancels a wait not yet served. */
  giveBack(): void;
};

export function createAcceptanceTurns() {
  let taken = false;
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
        if (!taken) {
          taken = true;
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
          const next = waiting.shift();
          if (next) next.serve();
          else taken = false;
        }
        state = "given back";
      },
    };
  }

  return {
    turn,
    /** Messages waiting for their turn (for tests). */
    get waiting() {
      return waiting.length;
    },
  };
}
