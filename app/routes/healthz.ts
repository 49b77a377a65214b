import { healthResponse } from "~/modules/admin/health.server";

export function loader() {
  return healthResponse();
}
