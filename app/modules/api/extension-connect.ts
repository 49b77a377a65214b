import { z } from "~/platform/zod";

/**
 * Connecting the Chrome extension: it opens /extension/connect with the
 * address of its own page that receives the token (a chrome-extension://
 * URL, whose host is the extension's id) and a random `state` it keeps, so
 * that page accepts only the answer to the request it made itself.
 */
export const ExtensionConnectSchema = z.object({
  return: z.string().regex(/^chrome-extension:\/\/[a-p]{32}\/connected\.html$/),
  state: z.string().regex(/^[A-Za-z0-9_-]{16,128}$/),
});

export const EXTENSION_TOKEN_NAME = "Chrome extension";

/** Where the browser goes to hand the token to the extension: the token rides in the fragment, never sent to a server. */
export function extensionFinishUrl(returnUrl: string, state: string, token: string) {
  return `${returnUrl}#${new URLSearchParams({ state, token })}`;
}
