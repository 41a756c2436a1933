#!/usr/bin/env python3
"""Link check of a built site (a dev tool, run by scripts/check-site.sh; standard library only).

  check_links.py files SITE_DIR
      Every href/src/srcset/data of every HTML page, resolved as a browser does from file://, must
      name a file in SITE_DIR, and a #fragment must name an id in the target page. Links that
      start with `/` or a scheme are reported (they break from file:// or leave the site),
      except in 404.html, whose links are absolute by design (`build --site-url`).

  check_links.py http BASE_URL SITE_DIR
      The same pages fetched from a server that serves the site under a sub-path (BASE_URL,
      e.g. http://127.0.0.1:8123/sub/path/): every link resolved against the page's URL must
      answer 200 (a link to `#id` of the page itself must name an id of it). 404.html is also
      fetched from a missing nested URL's point of view (BASE_URL/no/such/page.html), as
      GitHub Pages serves it.

Prints one line per broken link and a summary; exit 1 when any link is broken.
"""

import html.parser
import os
import sys
import urllib.error
import urllib.parse
import urllib.request


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links = []
        self.ids = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name == "id":
                self.ids.add(value)
            elif name in ("href", "src", "data"):
                self.links.append(value)
            elif name == "srcset":
                self.links.extend(part.strip().split(" ")[0] for part in value.split(",") if part.strip())


def parse(text):
    parser = Links()
    parser.feed(text)
    return parser


def pages(site):
    for folder, _, files in sorted(os.walk(site)):
        for name in sorted(files):
            if name.endswith(".html"):
                yield os.path.relpath(os.path.join(folder, name), site)


def is_external(link):
    return urllib.parse.urlsplit(link).scheme != ""


def check_files(site):
    broken, checked = [], 0
    ids = {}

    def ids_of(path):
        if path not in ids:
            with open(path, encoding="utf-8") as f:
                ids[path] = parse(f.read()).ids
        return ids[path]

    for page in pages(site):
        with open(os.path.join(site, page), encoding="utf-8") as f:
            links = parse(f.read()).links
        for link in links:
            checked += 1
            if is_external(link):
                broken.append(f"{page}: {link}: not a site-relative link")
                continue
            if link.startswith("/"):
                if os.path.basename(page) != "404.html":
                    broken.append(f"{page}: {link}: root-absolute (breaks from file:// and under a sub-path)")
                continue
            parts = urllib.parse.urlsplit(link)
            target = os.path.normpath(os.path.join(site, os.path.dirname(page), urllib.parse.unquote(parts.path)))
            if parts.path == "":
                target = os.path.join(site, page)
            if not os.path.realpath(target).startswith(os.path.realpath(site) + os.sep):
                broken.append(f"{page}: {link}: leaves the site")
            elif not os.path.isfile(target):
                broken.append(f"{page}: {link}: no such file")
            elif parts.fragment and target.endswith(".html") and parts.fragment not in ids_of(target):
                broken.append(f"{page}: {link}: no id {parts.fragment!r} in the target page")
    return broken, checked


def fetch(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.read()


def check_http(base, site):
    broken, checked, seen = [], 0, {}

    def status(url):
        if url not in seen:
            try:
                seen[url] = fetch(url)[0]
            except urllib.error.HTTPError as e:
                seen[url] = e.code
            except (urllib.error.URLError, OSError) as e:
                seen[url] = str(e)
        return seen[url]

    page_urls = [(page, urllib.parse.urljoin(base, page)) for page in pages(site)]
    page_urls.append(("404.html as served for a missing nested URL", urllib.parse.urljoin(base, "no/such/page.html")))
    for page, page_url in page_urls:
        source = page_url if not page.startswith("404.html as") else urllib.parse.urljoin(base, "404.html")
        try:
            text = fetch(source)[1].decode("utf-8")
        except (urllib.error.URLError, OSError) as e:
            broken.append(f"{page}: cannot fetch {source}: {e}")
            continue
        parsed = parse(text)
        for link in parsed.links:
            checked += 1
            if is_external(link):
                broken.append(f"{page}: {link}: not a site-relative link")
                continue
            if link.startswith("#"):
                # The page itself, already fetched (404.html's skip link, served at a missing URL).
                if link[1:] not in parsed.ids:
                    broken.append(f"{page}: {link}: no such id in the page")
                continue
            target = urllib.parse.urljoin(page_url, link).split("#")[0]
            if not target.startswith(base):
                broken.append(f"{page}: {link}: resolves to {target}, outside {base}")
            elif status(target) != 200:
                broken.append(f"{page}: {link}: {target} answered {status(target)}")
    return broken, checked


def main(argv):
    if len(argv) == 3 and argv[1] == "files":
        broken, checked = check_files(argv[2])
        where = f"from file:// in {argv[2]}"
    elif len(argv) == 4 and argv[1] == "http":
        base = argv[2] if argv[2].endswith("/") else argv[2] + "/"
        broken, checked = check_http(base, argv[3])
        where = f"served under {base}"
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for line in broken:
        print(line)
    print(f"link check {where}: {checked} links on {len(list(pages(argv[-1])))} pages, {len(broken)} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
