import { describe, expect, it } from "vitest";
import {
  ExpositionError,
  escapeHelp,
  escapeLabelValue,
  formatValue,
  type MetricFamily,
  renderExposition,
} from "./prometheus";

describe("renderExposition", () => {
  it("writes HELP and TYPE once per family, then its samples, and ends with a newline", () => {
    const text = renderExposition([
      {
        name: "jobs",
        type: "gauge",
        help: "Jobs by state.",
        samples: [
          { labels: { state: "queued" }, value: 3 },
          { labels: { state: "done" }, value: 0 },
        ],
      },
      { name: "runs_total", type: "counter", help: "Runs.", samples: [{ value: 12 }] },
      {
        name: "wait_seconds",
        type: "summary",
        help: "Wait.",
        samples: [
          {
            labels: { queue: "a" },
            quantiles: [
              [0.5, 0.25],
              [0.99, Number.NaN],
            ],
          },
        ],
      },
    ]);
    expect(text).toBe(
      [
        "# HELP jobs Jobs by state.",
        "# TYPE jobs gauge",
        'jobs{state="queued"} 3',
        'jobs{state="done"} 0',
        "# HELP runs_total Runs.",
        "# TYPE runs_total counter",
        "runs_total 12",
        "# HELP wait_seconds Wait.",
        "# TYPE wait_seconds summary",
        'wait_seconds{quantile="0.5",queue="a"} 0.25',
        'wait_seconds{quantile="0.99",queue="a"} NaN',
        "",
      ].join("\n"),
    );
  });

  it("escapes backslash, double quote and newline in label values, and sorts labels", () => {
    const text = renderExposition([
      {
        name: "m",
        type: "gauge",
        help: 'Say "hi"\\now\nthen',
        samples: [{ labels: { z: "1", a: 'C:\\dir "x"\nnext' }, value: 1 }],
      },
    ]);
    expect(text.split("\n")).toEqual([
      // In HELP only backslash and newline are escaped.
      '# HELP m Say "hi"\\\\now\\nthen',
      "# TYPE m gauge",
      'm{a="C:\\\\dir \\"x\\"\\nnext",z="1"} 1',
      "",
    ]);
    expect(escapeLabelValue('\\"\n')).toBe('\\\\\\"\\n');
    expect(escapeHelp('\\"\n')).toBe('\\\\"\\n');
  });

  it("formats special values as Prometheus parses them", () => {
    expect(
      [Number.NaN, Infinity, -Infinity, 0, -2.5, 1e21, 0.1].map((v) => formatValue(v)),
    ).toEqual(["NaN", "+Inf", "-Inf", "0", "-2.5", "1e+21", "0.1"]);
  });

  it("renders nothing for no families and a family with no samples as its HELP and TYPE", () => {
    expect(renderExposition([])).toBe("");
    expect(renderExposition([{ name: "idle", type: "gauge", help: "h", samples: [] }])).toBe(
      "# HELP idle h\n# TYPE idle gauge\n",
    );
  });

  it.each<[string, MetricFamily[], RegExp]>([
    [
      "a series written twice (labels in another order)",
      [
        {
          name: "m",
          type: "gauge",
          help: "h",
          samples: [
            { labels: { a: "1", b: "2" }, value: 1 },
            { labels: { b: "2", a: "1" }, value: 2 },
          ],
        },
      ],
      /m\{a="1",b="2"\}: the series is written twice/,
    ],
    [
      "an unlabelled series written twice",
      [{ name: "m", type: "counter", help: "h", samples: [{ value: 1 }, { value: 1 }] }],
      /m: the series is written twice/,
    ],
    [
      "a family written twice",
      [
        { name: "m", type: "gauge", help: "h", samples: [] },
        { name: "m", type: "counter", help: "h", samples: [] },
      ],
      /m: the family is written twice/,
    ],
    [
      "a bad metric name",
      [{ name: "agent-ledger", type: "gauge", help: "h", samples: [] }],
      /"agent-ledger" is not a valid metric name/,
    ],
    [
      "a bad label name",
      [{ name: "m", type: "gauge", help: "h", samples: [{ labels: { "a-b": "x" }, value: 1 }] }],
      /"a-b" is not a valid label name/,
    ],
    [
      "a reserved label name",
      [{ name: "m", type: "gauge", help: "h", samples: [{ labels: { __name__: "x" }, value: 1 }] }],
      /"__name__" is not a valid label name/,
    ],
    [
      "a summary's own quantile label",
      [
        {
          name: "m",
          type: "summary",
          help: "h",
          samples: [{ labels: { quantile: "x" }, quantiles: [[0.5, 1]] }],
        },
      ],
      /"quantile" is reserved/,
    ],
    [
      "a quantile outside [0, 1]",
      [{ name: "m", type: "summary", help: "h", samples: [{ quantiles: [[1.5, 1]] }] }],
      /quantile 1.5 is not within \[0, 1\]/,
    ],
    [
      "a negative counter",
      [{ name: "m_total", type: "counter", help: "h", samples: [{ value: -1 }] }],
      /a counter cannot be -1/,
    ],
    [
      "a NaN counter",
      [{ name: "m_total", type: "counter", help: "h", samples: [{ value: Number.NaN }] }],
      /a counter cannot be NaN/,
    ],
  ])("refuses %s", (_, families, message) => {
    expect(() => renderExposition(families)).toThrow(ExpositionError);
    expect(() => renderExposition(families)).toThrow(message);
  });
});
