import dns2 from "dns2";

const { Packet } = dns2;

/**
 * A real DNS server on loopback (UDP) answering TXT questions from `records`
 * and NXDOMAIN to everything else: the SPF, DKIM and DMARC records of the
 * test's own domains, for the app's DNS_SERVERS.
 */
export async function startDnsServer(records: Record<string, string>) {
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
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
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: "127.0.0.1" } });
  return { address: `127.0.0.1:${addresses.udp?.port}`, stop: () => server.close() };
}
