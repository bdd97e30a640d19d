-- The web channel's daily pool (contract section 12): a free account's final publication from the
-- dashboard takes one of PRESSROOM_WEB_DAILY_UNITS per UTC day while any remain. Such a
-- reservation has source 'web_daily' and its period_start is the UTC day it belongs to (a
-- monthly reservation's is the first day of its month), so the two never share a tally.
alter table unit_reservations drop constraint unit_reservations_source_check;
alter table unit_reservations add constraint unit_reservations_source_check
  check (source in ('allowance', 'credit_pack', 'admin', 'web_daily'));
