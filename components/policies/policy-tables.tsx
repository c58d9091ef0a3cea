// Retry-policy rows, what each agent's code declares and what is in force per agent. A row
// leaves a field empty to let it fall through to the next level; the in-force table names the
// level each value comes from.
import type {
  AgentPolicyDto,
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

/** One level's values as a definition list: the global row and the built-in defaults. */
export function PolicyValues({ values, testId }: { values: PolicyValuesDto; testId: string }) {
  return (
    <dl data-testid={testId} className="grid gap-x-6 gap-y-4 sm:grid-cols-2 xl:grid-cols-3">
      {POLICY_FIELDS.map((f) => (
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

export function AgentRowsTable({ rows }: { rows: PolicyRowDto[] }) {
  return (
    <Table caption="Per-agent overrides; an empty field inherits">
      <thead>
        <tr>
          <Th>Agent</Th>
          {POLICY_FIELDS.map((f) => (
            <Th key={f} align="right">
              {POLICY_FIELD_LABEL[f]}
            </Th>
          ))}
          <Th align="right">Version</Th>
          <Th>Updated</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {rows.map((r) => (
          <tr key={r.scope} data-scope={r.scope}>
            <Td mono>
              <span className="whitespace-nowrap">{r.agent ?? r.scope}</span>
            </Td>
            {POLICY_FIELDS.map((f) => (
              <Td key={f} align="right">
                {r.values[f] === null ? (
                  <span className="text-slate-500">inherits</span>
                ) : (
                  <span data-field={f} className="font-medium text-slate-900">
                    {formatPolicyValue(f, r.values[f])}
                  </span>
                )}
              </Td>
            ))}
            <Td align="right">{r.version}</Td>
            <Td>
              <span className="block truncate" title={r.updatedBy}>
                {r.updatedBy}
              </span>
              <span className="block text-xs text-slate-600">
                <Timestamp iso={r.updatedAt} />
              </span>
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
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
    <Table caption="Retry policy declared in each agent's code, as its workers published it">
      <thead>
        <tr>
          <Th>Agent</Th>
          {POLICY_FIELDS.map((f) => (
            <Th key={f} align="right">
              {POLICY_FIELD_LABEL[f]}
            </Th>
          ))}
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {agents.map((a) => (
          <tr key={a.agent} data-code-agent={a.agent}>
            <Td mono>
              <span className="whitespace-nowrap">{a.agent}</span>
            </Td>
            {POLICY_FIELDS.map((f) => (
              <Td key={f} align="right">
                {a.code?.[f] == null ? (
                  <span className="text-slate-500">not set</span>
                ) : (
                  <span data-field={f} className="font-medium text-slate-900">
                    {formatPolicyValue(f, a.code[f])}
                  </span>
                )}
              </Td>
            ))}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

export function InForceTable({ agents }: { agents: AgentPolicyDto[] }) {
  return (
    <Table caption="Retry policy in force per agent, with the level each value comes from">
      <thead>
        <tr>
          <Th>Agent</Th>
          {POLICY_FIELDS.map((f) => (
            <Th key={f} align="right">
              {POLICY_FIELD_LABEL[f]}
            </Th>
          ))}
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {agents.map((a) => (
          <tr key={a.agent} data-agent={a.agent}>
            <Td mono>
              <span className="whitespace-nowrap">{a.agent}</span>
            </Td>
            {POLICY_FIELDS.map((f) => (
              <Td key={f} align="right">
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
              </Td>
            ))}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
