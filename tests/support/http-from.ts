import http from "node:http";

/**
 * A request from one local address, as a client of its own: any address of
 * 127.0.0.0/8 reaches a server on loopback, and the server tells clients
 * apart by their address (docs/memory-budget.md, "A fair share per client").
 * Node's fetch cannot choose its local address, hence http.request.
 */
export type AnswerFrom = {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The `name=value` of each Set-Cookie. */
  cookies: string[];
  text: string;
  ms: number;
};

export function requestFrom(
  from: string,
  url: string,
  init: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    signal?: AbortSignal;
  } = {},
) {
  const started = performance.now();
  return new Promise<AnswerFrom>((resolve, reject) => {
    const request = http.request(url, {
      method: init.method ?? "GET",
      headers: init.headers,
      localAddress: from,
      signal: init.signal,
    });
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          cookies: (response.headers["set-cookie"] ?? []).map((header) => header.split(";")[0]!),
          text: Buffer.concat(chunks).toString("utf8"),
          ms: performance.now() - started,
        }),
      );
    });
    request.on("error", reject);
    request.end(init.body);
  });
}

/** The `name=value` of the cookie `name` an answer set, if it set one. */
export function cookieFrom(answer: AnswerFrom, name: string) {
  return answer.cookies.find((pair) => pair.startsWith(`${name}=`));
}
