import { main } from "./admin-role";

/** `npm run admin:revoke -- EMAIL [--reason TEXT]`: revokes the admin role (the history stays). */
main("revoke");
