import { Link } from "@remix-run/react";

/** The admin dashboard's tabs; each is a URL (`?tab=`), so they work without JavaScript. */
export const TABS = [
  { id: "overview", label: "Overview" },
  { id: "health", label: "System Health" },
  { id: "business", label: "Business Metrics" },
  { id: "usage", label: "Usage & Revenue" },
  { id: "security", label: "Security" },
] as const;
export type Tab = (typeof TABS)[number]["id"];

export function tabOf(value: string | null): Tab {
  return TABS.find((tab) => tab.id === value)?.id ?? "overview";
}

export const tabHref = (tab: Tab) =>
  tab === "overview" ? "/admin/dashboard" : `/admin/dashboard?tab=${tab}`;

export function TabNav({ current }: { current: Tab }) {
  return (
    <nav aria-label="Dashboard sections" className="mt-3">
      <ul className="flex flex-wrap gap-1 rounded-full bg-stone-100 p-1">
        {TABS.map((tab) => (
          <li key={tab.id}>
            <Link
              to={tabHref(tab.id)}
              aria-current={tab.id === current ? "page" : undefined}
              className={`block rounded-full px-4 py-1.5 text-sm font-semibold ${
                tab.id === current ? "bg-brand-700 text-white" : "text-stone-700 hover:bg-stone-200"
              }`}
            >
              {tab.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export function SecurityLink() {
  return (
    <Link to="/admin/security" className="btn-secondary py-1.5">
      Open the Security Dashboard
    </Link>
  );
}
