import type { Key, ReactNode } from "react";

/** One column: its header and what each row shows in it. */
export type DataColumn<Row> = {
  /** Tells the column apart from the others (its React key). */
  id: string;
  header: ReactNode;
  cell: (row: Row) => ReactNode;
  /** The column that names each row: its cells are row headers (`<th scope="row">`). */
  rowHeader?: boolean;
  /** Figures line up on the right. */
  align?: "start" | "end";
  /** Extra classes for this column's cells, such as `break-all` for addresses. */
  cellClassName?: string;
};

/**
 * The app's one data table (docs/decisions/0116-one-data-table.md): a caption
 * (shown, or for screen readers only when a heading above already says it),
 * column headers with `scope`, and an empty state in place of a table with no
 * rows. On a narrow screen it scrolls sideways inside a region of its own,
 * which takes focus so a keyboard can scroll it too.
 */
export function DataTable<Row>({
  caption,
  captionHidden = false,
  columns,
  rows,
  rowKey,
  empty,
  className = "",
}: {
  caption: string;
  captionHidden?: boolean;
  columns: readonly DataColumn<Row>[];
  rows: readonly Row[];
  rowKey: (row: Row) => Key;
  /** Shown instead of the table when there are no rows; without it the headers stand alone. */
  empty?: ReactNode;
  className?: string;
}) {
  if (rows.length === 0 && empty !== undefined) return <>{empty}</>;
  return (
    <section
      // Not the caption alone: the region would share its name with the section around it.
      aria-label={`${caption} table`}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus (WCAG 2.1.1).
      tabIndex={0}
      className={`overflow-x-auto ${className}`}
    >
      <table className="w-full text-left text-sm">
        <caption
          className={captionHidden ? "sr-only" : "pb-2 text-left font-semibold text-stone-900"}
        >
          {caption}
        </caption>
        <thead>
          <tr className="text-stone-700">
            {columns.map((column) => (
              <th
                key={column.id}
                scope="col"
                className={`py-1 pr-3 font-semibold last:pr-0 ${column.align === "end" ? "text-right" : ""}`}
              >
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)} className="border-t border-stone-200 align-top">
              {columns.map((column) => {
                const className = `py-1 pr-3 last:pr-0 ${column.align === "end" ? "text-right tabular-nums" : ""} ${column.cellClassName ?? ""}`;
                return column.rowHeader ? (
                  <th
                    key={column.id}
                    scope="row"
                    className={`font-medium text-stone-900 ${className}`}
                  >
                    {column.cell(row)}
                  </th>
                ) : (
                  <td key={column.id} className={className}>
                    {column.cell(row)}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
