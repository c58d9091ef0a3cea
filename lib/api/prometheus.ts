// The Prometheus text exposition format, version 0.0.4: what a scraper of /api/metrics reads.
// Pure (no I/O). It refuses what a scraper would reject or misread: bad names, a family or a
// series written twice, a label that clashes with the type's own (`quantile`).
// https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export type Labels = Readonly<Record<string, string>>;

export type MetricFamily =
  | {
      type: "counter" | "gauge";
      name: string;
      help: string;
      samples: readonly { labels?: Labels; value: number }[];
    }
  | {
      /**
       * Quantiles only: `_sum` and `_count` are optional in the format, and they are counters
       * that must only grow, so a family whose quantiles cover a sliding window leaves them out.
       */
      type: "summary";
      name: string;
      help: string;
      samples: readonly { labels?: Labels; quantiles: readonly (readonly [number, number])[] }[];
    };

export class ExpositionError extends Error {
  override name = "ExpositionError";
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Label values: backslash, double quote and line feed are the three the format escapes. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** HELP text: backslash and line feed only (a quote needs no escape there). */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

/** Go's float formatting as Prometheus parses it: NaN, +Inf, -Inf, or a decimal. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(value);
}

function checkLabels(name: string, labels: Labels, reserved: readonly string[]): void {
  for (const label of Object.keys(labels)) {
    if (!LABEL_NAME.test(label) || label.startsWith("__")) {
      throw new ExpositionError(`${name}: "${label}" is not a valid label name`);
    }
    if (reserved.includes(label)) {
      throw new ExpositionError(`${name}: the label "${label}" is reserved for this metric type`);
    }
  }
}

/** Sorted by name, so the same labels given in another order are the same series. */
function formatLabels(labels: Labels): string {
  const names = Object.keys(labels).sort();
  if (names.length === 0) return "";
  return `{${names.map((l) => `${l}="${escapeLabelValue(labels[l] ?? "")}"`).join(",")}}`;
}

/** One text document; families appear in the order given, each HELP and TYPE line once. */
export function renderExposition(families: readonly MetricFamily[]): string {
  const familyNames = new Set<string>();
  const lines: string[] = [];
  for (const family of families) {
    if (!METRIC_NAME.test(family.name)) {
      throw new ExpositionError(`"${family.name}" is not a valid metric name`);
    }
    if (familyNames.has(family.name)) {
      throw new ExpositionError(`${family.name}: the family is written twice`);
    }
    familyNames.add(family.name);
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`);
    lines.push(`# TYPE ${family.name} ${family.type}`);
    // A repeated series (same labels, however ordered) would make the scrape fail.
    const seen = new Set<string>();
    const line = (labels: string, value: number) => {
      if (seen.has(labels)) {
        throw new ExpositionError(`${family.name}${labels}: the series is written twice`);
      }
      seen.add(labels);
      lines.push(`${family.name}${labels} ${formatValue(value)}`);
    };
    if (family.type === "summary") {
      for (const sample of family.samples) {
        checkLabels(family.name, sample.labels ?? {}, ["quantile"]);
        for (const [quantile, value] of sample.quantiles) {
          if (!(quantile >= 0 && quantile <= 1)) {
            throw new ExpositionError(`${family.name}: quantile ${quantile} is not within [0, 1]`);
          }
          line(formatLabels({ ...sample.labels, quantile: formatValue(quantile) }), value);
        }
      }
    } else {
      for (const sample of family.samples) {
        checkLabels(family.name, sample.labels ?? {}, []);
        // A counter only grows from zero; a negative or NaN one would break rate().
        if (family.type === "counter" && !(sample.value >= 0)) {
          throw new ExpositionError(`${family.name}: a counter cannot be ${sample.value}`);
        }
        line(formatLabels(sample.labels ?? {}), sample.value);
      }
    }
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}
