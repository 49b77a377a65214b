import crypto from "node:crypto";
import http from "node:http";

export type FakeIdentity = {
  sub: string;
  email: string;
  email_verified: boolean;
  given_name?: string;
  family_name?: string;
};

export const IDENTITY_COOKIE = "fake_identity";

export function identityCookieValue(identity: FakeIdentity) {
  return Buffer.from(JSON.stringify(identity)).toString("base64url");
}

function identityFrom(cookieHeader: string | undefined): FakeIdentity | null {
  const value = (cookieHeader ?? "")
    .split(";")
    .map((part) => part.trim().split("="))
    .find(([name]) => name === IDENTITY_COOKIE)?.[1];
  if (!value) return null;
  return JSON.parse(Buffer.from(value, "base64url").toString()) as FakeIdentity;
}

/**
 * A small OAuth 2.0 / OpenID Connect provider on loopback for the sign-in
 * tests. It signs in the identity the browser carries in a cookie on the
 * provider's origin (so parallel tests never mix), checks the code, client
 * credentials and PKCE verifier like a real provider, and serves the identity
 * at /userinfo.
 */
export async function startFakeOAuthProvider(clientId: string, clientSecret: string) {
  const codes = new Map<
    string,
    { identity: FakeIdentity; challenge: string; redirectUri: string }
  >();
  const tokens = new Map<string, FakeIdentity>();

  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const body = await new Promise<string>((resolve) => {
      let text = "";
      request.on("data", (chunk) => {
        text += chunk;
      });
      request.on("end", () => resolve(text));
    });
    const send = (status: number, payload: unknown) => {
      response.writeHead(status, { "Content-Type": "application/json" });
      response.end(JSON.stringify(payload));
    };

    if (url.pathname === "/authorize") {
      const redirectUri = url.searchParams.get("redirect_uri") ?? "";
      const identity = identityFrom(request.headers.cookie);
      if (url.searchParams.get("client_id") !== clientId || !identity) {
        return send(400, { error: "invalid_request" });
      }
      const code = crypto.randomBytes(16).toString("hex");
      codes.set(code, {
        identity,
        challenge: url.searchParams.get("code_challenge") ?? "",
        redirectUri,
      });
      const target = new URL(redirectUri);
      target.searchParams.set("code", code);
      target.searchParams.set("state", url.searchParams.get("state") ?? "");
      response.writeHead(302, { Location: target.toString() });
      return response.end();
    }
    if (url.pathname === "/token" && request.method === "POST") {
      const form = new URLSearchParams(body);
      const basic = (request.headers.authorization ?? "").replace(/^Basic /, "");
      const [id, secret] = Buffer.from(basic, "base64").toString().split(":");
      const credentialsOk =
        (id === clientId && secret === clientSecret) ||
        (form.get("client_id") === clientId && form.get("client_secret") === clientSecret);
      const grant = codes.get(form.get("code") ?? "");
      const verifier = form.get("code_verifier") ?? "";
      const challenge = crypto.createHash("sha256").update(verifier).digest("base64url");
      if (!credentialsOk || !grant || grant.challenge !== challenge) {
        return send(400, { error: "invalid_grant" });
      }
      codes.delete(form.get("code") ?? "");
      const accessToken = crypto.randomBytes(16).toString("hex");
      tokens.set(accessToken, grant.identity);
      return send(200, { access_token: accessToken, token_type: "Bearer", expires_in: 3600 });
    }
    if (url.pathname === "/userinfo") {
      const identity = tokens.get((request.headers.authorization ?? "").replace(/^Bearer /, ""));
      return identity ? send(200, identity) : send(401, { error: "invalid_token" });
    }
    send(404, { error: "not_found" });
  });

  const port = await new Promise<number>((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : 0);
    });
  });
  server.unref();
  return { port, origin: `http://127.0.0.1:${port}` };
}
