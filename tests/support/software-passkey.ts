import crypto from "node:crypto";
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { isoCBOR } from "@simplewebauthn/server/helpers";

/**
 * A passkey made in the test process: a P-256 key that answers WebAuthn
 * ceremonies for `origin` exactly as a device would (user present and
 * verified), so the server's real @simplewebauthn checks run on its answers.
 * Its signature counter stays at 0, as synced passkeys' do: the counter
 * cannot tell a replayed answer from a fresh one.
 */
export function createSoftwarePasskey(origin: string) {
  const { privateKey, publicKey } = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = publicKey.export({ format: "jwk" });
  const coseKey = isoCBOR.encode(
    new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x!, "base64url")],
      [-3, Buffer.from(jwk.y!, "base64url")],
    ]),
  );
  const credentialId = crypto.randomBytes(16);
  const id = credentialId.toString("base64url");
  const sha256 = (data: Buffer | string) => crypto.createHash("sha256").update(data).digest();
  const rpIdHash = sha256(new URL(origin).hostname);
  const USER_PRESENT_AND_VERIFIED = 0x01 | 0x04;
  const ATTESTED_CREDENTIAL = 0x40;
  const counterBytes = Buffer.alloc(4);

  function clientData(type: string, challenge: string) {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  return {
    id,
    /** The public key as the app stores it (`passkeys.public_key`). */
    publicKey: Buffer.from(coseKey).toString("base64url"),

    register(challenge: string): RegistrationResponseJSON {
      const idLength = Buffer.alloc(2);
      idLength.writeUInt16BE(credentialId.length);
      const authData = Buffer.concat([
        rpIdHash,
        Buffer.from([USER_PRESENT_AND_VERIFIED | ATTESTED_CREDENTIAL]),
        counterBytes,
        Buffer.alloc(16), // AAGUID: none
        idLength,
        credentialId,
        coseKey,
      ]);
      const attestationObject = isoCBOR.encode(
        new Map<string, string | Uint8Array | Map<string, string>>([
          ["fmt", "none"],
          ["attStmt", new Map<string, string>()],
          ["authData", authData],
        ]),
      );
      return {
        id,
        rawId: id,
        type: "public-key",
        response: {
          clientDataJSON: clientData("webauthn.create", challenge).toString("base64url"),
          attestationObject: Buffer.from(attestationObject).toString("base64url"),
          transports: ["internal"],
        },
        clientExtensionResults: {},
      };
    },

    signIn(challenge: string): AuthenticationResponseJSON {
      const authData = Buffer.concat([
        rpIdHash,
        Buffer.from([USER_PRESENT_AND_VERIFIED]),
        counterBytes,
      ]);
      const clientDataJSON = clientData("webauthn.get", challenge);
      const signature = crypto.sign(
        "sha256",
        Buffer.concat([authData, sha256(clientDataJSON)]),
        privateKey,
      );
      return {
        id,
        rawId: id,
        type: "public-key",
        response: {
          authenticatorData: authData.toString("base64url"),
          clientDataJSON: clientDataJSON.toString("base64url"),
          signature: signature.toString("base64url"),
        },
        clientExtensionResults: {},
      };
    },
  };
}
