CREATE INDEX "effects_args_to_idx" ON "effects" USING btree (lower("args" ->> 'to'));--> statement-breakpoint
CREATE INDEX "effects_intent_to_idx" ON "effects" USING btree (lower("intent" ->> 'to'));--> statement-breakpoint
CREATE INDEX "effects_args_to_list_idx" ON "effects" USING btree ("created_at") WHERE jsonb_typeof("effects"."args" -> 'to') = 'array';--> statement-breakpoint
CREATE INDEX "effects_message_id_idx" ON "effects" USING btree (("result" ->> 'messageId'));--> statement-breakpoint
CREATE INDEX "effects_refund_id_idx" ON "effects" USING btree (("result" ->> 'refundId'));