// The status page: one self-contained HTML document (inline style and
// script, no external asset, no CDN: it works on air-gapped sites). It holds
// no data: its script reads the token from the URL fragment (#token=...,
// which browsers never send to the server) or asks for it, then reads
// /api/v1/status every few seconds and follows /api/v1/events while a job
// runs. Every value from the API is inserted as text, never as HTML.
#pragma once

namespace clusterctl {

extern const char* const kStatusPageHtml;

}  // namespace clusterctl
