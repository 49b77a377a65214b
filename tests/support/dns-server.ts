import dns2 from "dns2";

const { Packet } = dns2;

/**
 * A real DNS server on loopback (UDP) answering TXT questions from `records`
 * and NXDOMAIN to everything else: the SPF, DKIM and DMARC records of the
 * test's own domains, for the app's DNS_SERVERS. `hold(name)` keeps the
 * answers to questions about `name` until its release, so a test can stop a
 * message mid-check; `held()` counts the questions kept.
 */
export async function startDnsServer(records: Record<string, string>) {
  const holds = new Map<string, Array<() => void>>();
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const held = holds.get(request.questions[0]?.name.toLowerCase() ?? "");
      if (held) held.push(() => answer(request, send));
      else answer(request, send);
    },
  });
  function answer(request: Parameters<dns2.DnsHandler>[0], send: Parameters<dns2.DnsHandler>[1]) {
    const response = Packet.createResponseFromRequest(request);
    const [question] = request.questions;
    const name = question?.name.toLowerCase() ?? "";
    const value = records[name];
    if (question && value !== undefined && question.type === Packet.TYPE.TXT) {
      // TXT strings are at most 255 bytes each; a DKIM key is longer.
      const data = value.match(/.{1,250}/g) ?? [""];
      response.answers.push({
        name: question.name,
        type: Packet.TYPE.TXT,
        class: Packet.CLASS.IN,
        ttl: 60,
        data: [...data],
      } as unknown as InstanceType<typeof Packet.Resource>);
    } else if (value === undefined) {
      response.header.rcode = 3; // NXDOMAIN
    }
    send(response);
  }
  const addresses = await server.listen({ udp: { port: 0, address: "127.0.0.1" } });
  return {
    address: `127.0.0.1:${addresses.udp?.port}`,
    stop: () => server.close(),
    hold(name: string) {
      holds.set(name, []);
      return () => {
        const kept = holds.get(name) ?? [];
        holds.delete(name);
        for (const release of kept) release();
      };
    },
    held: () => [...holds.values()].reduce((sum, kept) => sum + kept.length, 0),
  };
}
