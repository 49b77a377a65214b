import { healthResponse } from "~/utils/health.server";

export function loader() {
  return healthResponse();
}
