import { describe, expect, it } from "vitest";
import { csvCell, csvRow, defuseCell } from "./csv";

describe("defuseCell", () => {
  it.each([
    ['=HYPERLINK("http://evil")', '\'=HYPERLINK("http://evil")'],
    ["+1+1", "'+1+1"],
    ["-2+3", "'-2+3"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["\t=1", "'\t=1"],
    ["\r=1", "'\r=1"],
  ])("prefixes %j with an apostrophe", (input, expected) => {
    expect(defuseCell(input)).toBe(expected);
  });

  it.each([["rita@example.com"], ["effect.succeeded"], [" =1"], [""], ["a=b"]])(
    "leaves %j alone",
    (input) => {
      expect(defuseCell(input)).toBe(input);
    },
  );
});

describe("csvCell and csvRow", () => {
  it("quotes commas, quotes and line breaks after defusing", () => {
    expect(csvCell('=1,"2"')).toBe(`"'=1,""2"""`);
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
    expect(csvCell("-\r\n")).toBe(`"'-\r\n"`);
  });

  it("writes numbers as they are (a negative number is data, not a formula) and null as empty", () => {
    expect(csvRow([1, -5, null, undefined, true, "x"])).toBe("1,-5,,,true,x\r\n");
  });
});
