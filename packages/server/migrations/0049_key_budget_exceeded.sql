-- budget.exceeded (api-contract-events.md §E5.11, api-contract-agent-v2.md §2.6): once per window of
-- a key's budget. The start of the window whose refusal has recorded the event; null = armed. Read
-- and set under the budget row's lock, so concurrent refusals record it once; a window that moves on
-- re-arms it by its new start, and every PUT clears it (a new budget, like the alert stamp).
alter table api_key_budgets add column exceeded_window_start timestamptz;
