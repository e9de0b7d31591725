// The status page: an HTML document, its style (/app.css) and its script
// (/app.js), all served by the daemon itself (no external asset, no CDN: it
// works on air-gapped sites). None holds data, so none needs the token.
// The script reads the token from the URL fragment (#token=..., which
// browsers never send to the server), keeps it in the tab's session storage
// and clears it from the address bar and the history; or it asks for it.
// Then it reads /api/v1/status every few seconds and follows
// /api/v1/events while a job runs. Every value from the API is inserted as
// text, never as HTML. The document carries no inline script, style or
// event handler, so its Content-Security-Policy allows only the daemon's
// own script and style.
#pragma once

namespace clusterctl {

extern const char* const kStatusPageHtml;
extern const char* const kStatusPageStyle;
extern const char* const kStatusPageScript;
extern const char* const kStatusPagePolicy;  // the page's Content-Security-Policy

}  // namespace clusterctl
