/** The hidden field that carries a create form's one-time key (./one-time-keys.server.ts). */
export const ONE_TIME_KEY_FIELD = "oneTimeKey";
