import { DomUtils, parseDocument } from "htmlparser2";
import { renderToString } from "react-dom/server";
import { describe, expect, test } from "vitest";
import { type DataColumn, DataTable } from "./data-table";

type Visit = { ip: string; count: number };

const COLUMNS: DataColumn<Visit>[] = [
  { id: "ip", header: "IP address", rowHeader: true, cell: (row) => row.ip },
  { id: "count", header: "Events", align: "end", cell: (row) => row.count },
];

function parseTable(rows: Visit[], empty?: string) {
  const document = parseDocument(
    renderToString(
      <DataTable
        caption="Top IP addresses"
        captionHidden
        columns={COLUMNS}
        rows={rows}
        rowKey={(row) => row.ip}
        empty={empty ? <p>{empty}</p> : undefined}
      />,
    ),
  );
  const all = (tag: string) => DomUtils.getElementsByTagName(tag, document.children);
  return { document, all };
}

describe("DataTable", () => {
  test("a caption, column headers scoped to their columns and a header naming each row", () => {
    const { all } = parseTable([
      { ip: "203.0.113.9", count: 3 },
      { ip: "198.51.100.4", count: 1 },
    ]);
    expect(DomUtils.textContent(all("caption")[0]!)).toBe("Top IP addresses");
    expect(all("caption")[0]!.attribs.class).toContain("sr-only");
    const headers = all("th").map((th) => [th.attribs.scope, DomUtils.textContent(th)]);
    expect(headers).toEqual([
      ["col", "IP address"],
      ["col", "Events"],
      ["row", "203.0.113.9"],
      ["row", "198.51.100.4"],
    ]);
    expect(all("td").map((td) => DomUtils.textContent(td))).toEqual(["3", "1"]);
    expect(all("td")[0]!.attribs.class).toContain("text-right");
  });

  test("it scrolls inside a named region a keyboard can reach, for a narrow screen", () => {
    const region = parseTable([{ ip: "203.0.113.9", count: 3 }]).all("section")[0]!;
    expect(region.attribs).toMatchObject({
      "aria-label": "Top IP addresses table",
      tabindex: "0",
    });
    expect(region.attribs.class).toContain("overflow-x-auto");
  });

  test("no rows: the empty state instead of a table, or the bare headers without one", () => {
    const emptied = parseTable([], "No events yet.");
    expect(emptied.all("table")).toHaveLength(0);
    expect(DomUtils.textContent(emptied.document)).toBe("No events yet.");
    const bare = parseTable([]);
    expect(bare.all("th")).toHaveLength(2);
    expect(bare.all("tr")).toHaveLength(1);
  });
});
