import * as React from "react";

/**
 * The per-request CSP nonce reaches <Scripts> through React context, never
 * through a loader: a loader's data is cached and replayed, a nonce must not be.
 */
export const NonceContext = React.createContext<string>("");
export const NonceProvider = NonceContext.Provider;
export const useNonce = () => React.useContext(NonceContext);
