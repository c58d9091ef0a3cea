// Retry-policy rows, what each agent's code declares and what is in force per agent. A row
// leaves a field empty to let it fall through to the next level; the in-force table names the
// level each value comes from.
import type { ReactNode } from "react";
import type {
  AgentPolicyDto,
  PolicyField,
  PolicyRowDto,
  PolicySource,
  PolicyValuesDto,
} from "../../lib/server/queries/list-retry-policies";
import { POLICY_FIELDS } from "../../lib/server/queries/list-retry-policies";
import { Table, Td, Th } from "../ui/table";
import { Timestamp } from "../ui/timestamp";
import {
  formatPolicyValue,
  POLICY_FIELD_HINT,
  POLICY_FIELD_LABEL,
  POLICY_SOURCE_LABEL,
} from "./policy-format";

/**
 * One level's values as a definition list: the global row and the built-in defaults. Neither
 * ever sets the concurrency limit (an agent's own), so it is not listed.
 */
export function PolicyValues({ values, testId }: { values: PolicyValuesDto; testId: string }) {
  return (
    <dl data-testid={testId} className="grid gap-x-6 gap-y-4 sm:grid-cols-2 xl:grid-cols-3">
      {POLICY_FIELDS.filter((f) => f !== "concurrencyLimit").map((f) => (
        <div key={f} className="min-w-0">
          <dt className="text-sm font-medium text-slate-700">{POLICY_FIELD_LABEL[f]}</dt>
          <dd data-field={f} className="mt-0.5 text-xl font-semibold text-slate-900 tabular-nums">
            {formatPolicyValue(f, values[f])}
          </dd>
          <dd className="mt-0.5 text-xs text-slate-600">{POLICY_FIELD_HINT[f]}</dd>
        </div>
      ))}
    </dl>
  );
}

export function RowMeta({ row }: { row: PolicyRowDto }) {
  return (
    <span>
      Version {row.version}, updated by <span className="font-medium">{row.updatedBy}</span> at{" "}
      <Timestamp iso={row.updatedAt} />
    </span>
  );
}

/** A column after the policy fields (the agent-rows table adds version and who updated). */
type ExtraColumn<R> = { header: string; align?: "right"; cell: (row: R) => ReactNode };

/**
 * The shape all three per-agent tables share: an agent column, one column per policy field,
 * then any extra columns. Each table says only how a row names itself and fills a field.
 */
function PolicyFieldsTable<R>({
  caption,
  rows,
  rowKey,
  rowAttr,
  agent,
  field,
  extra = [],
}: {
  caption: string;
  rows: R[];
  rowKey: (row: R) => string;
  /** The data attribute the e2e specs find a row by, e.g. `data-agent`. */
  rowAttr: `data-${string}`;
  agent: (row: R) => string;
  field: (row: R, f: PolicyField) => ReactNode;
  extra?: ExtraColumn<R>[];
}) {
  return (
    <Table caption={caption}>
      <thead>
        <tr>
          <Th>Agent</Th>
          {POLICY_FIELDS.map((f) => (
            <Th key={f} align="right">
              {POLICY_FIELD_LABEL[f]}
            </Th>
          ))}
          {extra.map((c) => (
            <Th key={c.header} align={c.align}>
              {c.header}
            </Th>
          ))}
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {rows.map((r) => (
          <tr key={rowKey(r)} {...{ [rowAttr]: rowKey(r) }}>
            <Td mono>
              <span className="whitespace-nowrap">{agent(r)}</span>
            </Td>
            {POLICY_FIELDS.map((f) => (
              <Td key={f} align="right">
                {field(r, f)}
              </Td>
            ))}
            {extra.map((c) => (
              <Td key={c.header} align={c.align}>
                {c.cell(r)}
              </Td>
            ))}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** A set value, or the word that says why there is none (`inherits`, `not set`). */
function FieldValue({
  f,
  value,
  empty,
}: {
  f: PolicyField;
  value: number | null | undefined;
  empty: string;
}) {
  return value == null ? (
    <span className="text-slate-500">{empty}</span>
  ) : (
    <span data-field={f} className="font-medium text-slate-900">
      {formatPolicyValue(f, value)}
    </span>
  );
}

const AGENT_ROW_EXTRA: ExtraColumn<PolicyRowDto>[] = [
  { header: "Version", align: "right", cell: (r) => r.version },
  {
    header: "Updated",
    cell: (r) => (
      <>
        <span className="block truncate" title={r.updatedBy}>
          {r.updatedBy}
        </span>
        <span className="block text-xs text-slate-600">
          <Timestamp iso={r.updatedAt} />
        </span>
      </>
    ),
  },
];

export function AgentRowsTable({ rows }: { rows: PolicyRowDto[] }) {
  return (
    <PolicyFieldsTable
      caption="Per-agent overrides; an empty field inherits"
      rows={rows}
      rowKey={(r) => r.scope}
      rowAttr="data-scope"
      agent={(r) => r.agent ?? r.scope}
      field={(r, f) => <FieldValue f={f} value={r.values[f]} empty="inherits" />}
      extra={AGENT_ROW_EXTRA}
    />
  );
}

const SOURCE_CLASS: Record<PolicySource, string> = {
  task: "text-sky-800",
  agent: "text-sky-800",
  code: "text-violet-800",
  global: "text-slate-600",
  "built-in": "text-amber-800",
};

/** What each published agent's code declares; a field it leaves out falls through to global. */
export function CodeTable({ agents }: { agents: AgentPolicyDto[] }) {
  return (
    <PolicyFieldsTable
      caption="Retry policy declared in each agent's code, as its workers published it"
      rows={agents}
      rowKey={(a) => a.agent}
      rowAttr="data-code-agent"
      agent={(a) => a.agent}
      field={(a, f) => <FieldValue f={f} value={a.code?.[f]} empty="not set" />}
    />
  );
}

const IN_FORCE_EXTRA: ExtraColumn<AgentPolicyDto>[] = [
  {
    header: "Code version",
    cell: (a) =>
      a.codeVersion === null ? (
        <span className="text-slate-500">not published</span>
      ) : (
        <span data-code-version className="font-mono text-xs break-all">
          {a.codeVersion}
        </span>
      ),
  },
];

export function InForceTable({ agents }: { agents: AgentPolicyDto[] }) {
  return (
    <PolicyFieldsTable
      caption="Retry policy in force per agent, with the level each value comes from"
      rows={agents}
      rowKey={(a) => a.agent}
      rowAttr="data-agent"
      agent={(a) => a.agent}
      field={(a, f) => (
        <>
          <span
            data-field={f}
            data-source={a.fields[f].source}
            className="block font-medium text-slate-900"
          >
            {formatPolicyValue(f, a.fields[f].value)}
          </span>
          <span className={`block text-xs ${SOURCE_CLASS[a.fields[f].source]}`}>
            {POLICY_SOURCE_LABEL[a.fields[f].source]}
          </span>
        </>
      )}
      extra={IN_FORCE_EXTRA}
    />
  );
}
