import { z } from "zod";

/** The "New token" form on the profile page, shared by the browser and the action. */
export const API_TOKEN_SCOPES = ["read", "write"] as const;
export type ApiTokenScope = (typeof API_TOKEN_SCOPES)[number];

export const ApiTokenSchema = z.object({
  name: z
    .string({ required_error: "Please name the token" })
    .trim()
    .min(1, "Please name the token")
    .max(60, "Max characters: 60"),
  scope: z.enum(API_TOKEN_SCOPES).default("read"),
});

export type ApiTokenInput = z.output<typeof ApiTokenSchema>;
