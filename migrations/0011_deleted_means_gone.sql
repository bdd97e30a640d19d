-- A deleted document's words leave every copy of them (issue 30): its title, its revisions' source,
-- its jobs' copy of that source, the warnings that quote it (math warnings quote labels and
-- commands, missing-glyph warnings characters), and the saved idempotency outcomes that repeat the
-- title or the warnings. A deletion does this in `finishDeletion` (src/documents/documents.ts)
-- through the two functions below; this migration does it once for documents deleted by earlier
-- versions, which left the title, the warnings and the saved outcomes.

-- Warnings with their message replaced: the code and line stay, what they quoted goes.
create function scrub_warnings(warnings jsonb) returns jsonb language sql immutable as $$
  select case when jsonb_typeof(warnings) = 'array' then
    coalesce(
      (select jsonb_agg(warning || '{"message": "removed with its document"}'::jsonb order by position)
       from jsonb_array_elements(warnings) with ordinality as element(warning, position)),
      '[]'::jsonb)
  else warnings end
$$;

-- A saved response body with the document's title and the warnings it quoted removed (the shapes
-- of DocumentResponse and JobResponse); any other body unchanged.
create function scrub_saved_outcome(body jsonb) returns jsonb language sql immutable as $$
  select case when jsonb_typeof(body) = 'object' then
    body
    || case when jsonb_typeof(body -> 'document') = 'object' and body -> 'document' ? 'title'
         then jsonb_build_object('document', (body -> 'document') || '{"title": null}'::jsonb) else '{}'::jsonb end
    || case when body ? 'warnings' then jsonb_build_object('warnings', scrub_warnings(body -> 'warnings')) else '{}'::jsonb end
  else body end
$$;

update documents set title = null where status = 'deleted' and title is not null;

update revisions set markdown = null
where markdown is not null and document_id in (select id from documents where status = 'deleted');

update jobs set render_request = jsonb_set(render_request, '{markdown}', '""'::jsonb), warnings = scrub_warnings(warnings)
where document_id in (select id from documents where status = 'deleted');

update idempotency_records r set response_body = scrub_saved_outcome(r.response_body::jsonb)::text
from documents d
where d.status = 'deleted' and r.account_id = d.account_id and r.response_body like '%' || d.id::text || '%';
