DROP INDEX "effects_status_idx";--> statement-breakpoint
DROP INDEX "effects_tool_created_idx";--> statement-breakpoint
DROP INDEX "ledger_entries_task_idx";--> statement-breakpoint
DROP INDEX "effects_args_to_idx";--> statement-breakpoint
DROP INDEX "effects_intent_to_idx";--> statement-breakpoint
DROP INDEX "effects_message_id_idx";--> statement-breakpoint
DROP INDEX "effects_refund_id_idx";--> statement-breakpoint
DROP INDEX "tasks_enqueue_key_idx";--> statement-breakpoint
DROP INDEX "tasks_status_created_idx";--> statement-breakpoint
CREATE INDEX "effects_args_to_idx" ON "effects" USING btree (lower("args" ->> 'to')) WHERE lower("effects"."args" ->> 'to') is not null;--> statement-breakpoint
CREATE INDEX "effects_intent_to_idx" ON "effects" USING btree (lower("intent" ->> 'to')) WHERE lower("effects"."intent" ->> 'to') is not null;--> statement-breakpoint
CREATE INDEX "effects_message_id_idx" ON "effects" USING btree (("result" ->> 'messageId')) WHERE ("effects"."result" ->> 'messageId') is not null;--> statement-breakpoint
CREATE INDEX "effects_refund_id_idx" ON "effects" USING btree (("result" ->> 'refundId')) WHERE ("effects"."result" ->> 'refundId') is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "tasks_enqueue_key_idx" ON "tasks" USING btree ("enqueue_key") WHERE "tasks"."enqueue_key" is not null;--> statement-breakpoint
CREATE INDEX "tasks_status_created_idx" ON "tasks" USING btree ("status","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST) WHERE "tasks"."status" <> 'succeeded';