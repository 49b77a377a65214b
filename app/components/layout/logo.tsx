export function Logo({ className = "" }: { className?: string }) {
  return (
    <span
      className={`inline-flex items-center gap-2 font-serif text-lg font-semibold sm:text-xl ${className}`}
    >
      <svg aria-hidden="true" viewBox="0 0 32 32" className="h-7 w-7" fill="none">
        <rect x="3" y="7" width="26" height="19" rx="3" className="fill-brand-700" />
        <path d="M4 9l12 9 12-9" stroke="#fbf8f3" strokeWidth="2" strokeLinejoin="round" />
        <circle cx="25" cy="8" r="5" className="fill-amber-400" />
      </svg>
      Thoughtfully
    </span>
  );
}
