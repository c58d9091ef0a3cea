// API tokens, active first. The secret and its hash are never here: the prefix tells tokens
// apart. Names and actors are rendered as text (React escapes them).
import type { ApiTokenDto } from "../../lib/server/queries/list-api-tokens";
import { Badge } from "../ui/badge";
import { Table, Td, Th } from "../ui/table";
import { Timestamp } from "../ui/timestamp";
import { RevokeTokenControl } from "./revoke-token-control";

export function TokensTable({ tokens }: { tokens: ApiTokenDto[] }) {
  return (
    <Table caption="API tokens">
      <thead>
        <tr>
          <Th>Name</Th>
          <Th>Prefix</Th>
          <Th>Scopes</Th>
          <Th>Created</Th>
          <Th>Last used</Th>
          <Th>Status</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {tokens.map((t) => (
          <tr key={t.id} data-token-name={t.name} data-token-id={t.id}>
            <Td>
              <span className="font-medium text-slate-900">{t.name}</span>
            </Td>
            <Td mono>{t.prefix}…</Td>
            <Td>
              <ul className="flex max-w-sm flex-wrap gap-1">
                {t.scopes.map((s) => (
                  <li key={s} className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs">
                    {s}
                  </li>
                ))}
              </ul>
            </Td>
            <Td>
              <Timestamp iso={t.createdAt} />
              <span
                className="block max-w-[14rem] truncate text-xs text-slate-600"
                title={t.createdBy}
              >
                by {t.createdBy}
              </span>
            </Td>
            <Td>
              {t.lastUsedAt ? (
                <Timestamp iso={t.lastUsedAt} />
              ) : (
                <span className="text-slate-600">never</span>
              )}
            </Td>
            <Td>
              <div className="flex flex-col items-start gap-1.5">
                {t.revokedAt ? (
                  <>
                    <Badge tone="bad">revoked</Badge>
                    <span className="text-xs text-slate-600">
                      <Timestamp iso={t.revokedAt} />
                      {t.revokedBy ? (
                        <span className="block max-w-[14rem] truncate" title={t.revokedBy}>
                          by {t.revokedBy}
                        </span>
                      ) : null}
                    </span>
                  </>
                ) : (
                  <Badge tone="good">active</Badge>
                )}
                <RevokeTokenControl id={t.id} name={t.name} revoked={t.revokedAt !== null} />
              </div>
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
