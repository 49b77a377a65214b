import { main } from "./admin-role";

/** `npm run admin:grant -- EMAIL [--reason TEXT]`: grants the admin role. */
main("grant");
