// Everyone who may sign in. Names and emails are rendered as text (React escapes them).
import type { UserDto } from "../../lib/server/queries/list-users";
import { Badge } from "../ui/badge";
import { Table, Td, Th } from "../ui/table";
import { Timestamp } from "../ui/timestamp";
import { UnlockSignInControl, UserRoleControl, UserStatusControl } from "./user-controls";

export function UsersTable({
  users,
  roles,
  viewerId,
}: {
  users: UserDto[];
  roles: readonly string[];
  /** The signed-in admin: their own row is read-only. */
  viewerId: string | null;
}) {
  return (
    <Table caption="Users who may sign in">
      <thead>
        <tr>
          <Th>Name</Th>
          <Th>Email</Th>
          <Th>Role</Th>
          <Th>Status</Th>
          <Th>Created</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {users.map((u) => {
          const self = u.id === viewerId;
          return (
            <tr key={u.id} data-user-email={u.email}>
              <Td>
                {/* A real space and parentheses: the cell reads "Ada Admin (you)", not "Ada Adminyou"; on one line. */}
                <span className="whitespace-nowrap">
                  <span className="font-medium text-slate-900">{u.name}</span>
                  {self ? (
                    <>
                      {" "}
                      <span className="ml-1">
                        <Badge tone="info">
                          <span className="sr-only">(</span>you<span className="sr-only">)</span>
                        </Badge>
                      </span>
                    </>
                  ) : null}
                </span>
              </Td>
              <Td>
                <span className="whitespace-nowrap">{u.email}</span>
              </Td>
              <Td>
                {self ? (
                  <span title="Another admin can change your role">{u.role}</span>
                ) : (
                  <UserRoleControl user={u} roles={roles} />
                )}
              </Td>
              <Td>
                <div className="flex flex-col items-start gap-1.5">
                  <Badge tone={u.disabled ? "bad" : "good"}>
                    {u.disabled ? "disabled" : "active"}
                  </Badge>
                  {self ? null : <UserStatusControl user={u} />}
                  {self ? null : <UnlockSignInControl user={u} />}
                </div>
              </Td>
              <Td>
                <Timestamp iso={u.createdAt} />
              </Td>
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}
