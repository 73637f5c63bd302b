"""Retake the documentation's screenshots (docs/img/*.png) from a running demo server.

Not part of the test suite or CI: run it by hand after a change that alters a page.

    DEBUG=true .venv/bin/python manage.py migrate
    DEBUG=true .venv/bin/python manage.py setup_demo
    DEBUG=true .venv/bin/python manage.py rundev --port 8014 &     # web server + worker
    .venv/bin/python docs/screenshots.py --base http://127.0.0.1:8014 --prepare

``--prepare`` (once per fresh demo database) gives the lead pages something to show: through
the REST API, both demo annotators submit the trial pairs and the doubly annotated pairs
(annotator1 loosens the seed, annotator2 widens it),
annotator1 flags the last pair only they have and starts another, and the lead computes an agreement report (a job
the worker runs). Then Debian's Chromium (headless, through Playwright) takes each page at
1400 × 900, and ImageMagick's ``convert`` (when present) quantises each PNG to 64 colours so
it stays small.

``--lead-pages DIR`` instead takes EVERY lead page (the tabs, the Setup menu's pages, a pair's
read-only view, the adjudication of a pair, the new-project form) as the demo lead, each at
1400 × 900 and at 1024 × 700, whole pages, into DIR (not docs/img): for looking at them after a
change of the lead pages (issue 31), not for the docs.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import time
from pathlib import Path

import requests
from playwright.sync_api import Page, sync_playwright

DEMO = {
    "lead": "gridalign-lead",
    "annotator1": "gridalign-annotator1",
    "annotator2": "gridalign-annotator2",
}
CHROMIUM = "/usr/bin/chromium"
OUT = Path(__file__).resolve().parent / "img"
SIZE = {"width": 1400, "height": 900}


def api_session(base: str, user: str) -> requests.Session:
    r = requests.post(
        f"{base}/api/auth/token/",
        json={"username": user, "password": DEMO[user], "name": "screenshots"},
        timeout=30,
    )
    r.raise_for_status()
    session = requests.Session()
    session.headers["Authorization"] = f"Token {r.json()['token']}"
    return session


def assignments(api: requests.Session, base: str, project: int) -> list[dict]:
    rows, url = [], f"{base}/api/assignments/?project={project}&page_size=500"
    while url:
        page = api.get(url, timeout=30).json()
        rows += page["results"]
        url = page["next"]
    return rows


def submit(api: requests.Session, base: str, assignment: int, change) -> None:
    detail = api.get(f"{base}/api/assignments/{assignment}/", timeout=30).json()
    links = change([list(link) for link in detail["seed"]["links"]], detail["pair"])
    version = (detail["annotation"] or {}).get("version", 0)
    r = api.post(
        f"{base}/api/assignments/{assignment}/submit/",
        json={"version": version, "links": links},
        timeout=30,
    )
    r.raise_for_status()


def differs(link: list, pair: dict) -> bool:
    i, j = link[0], link[1]
    return pair["source"][i].lower() != pair["target"][j].lower()


def loosen(links: list, pair: dict) -> list:
    """annotator1: every second link between different words made possible, the last dropped."""
    other = [k for k, link in enumerate(links) if differs(link, pair)]
    for k in other[::2]:
        links[k][2] = "P"
    return [link for k, link in enumerate(links) if not other or k != other[-1]]


def widen(links: list, pair: dict) -> list:
    """annotator2: the first link between different words grows a sure neighbour."""
    taken = {(i, j) for i, j, _ in links}
    for i, j, _ in links:
        if differs([i, j], pair) and j + 1 < len(pair["target"]) and (i, j + 1) not in taken:
            return [*links, [i, j + 1, "S"]]
    return links


def prepare(base: str) -> int:
    """Work by both annotators and a stored report, so the lead pages have figures."""
    lead = api_session(base, "lead")
    project = lead.get(f"{base}/api/projects/", timeout=30).json()["results"][0]["id"]
    ann = {u: api_session(base, u) for u in ("annotator1", "annotator2")}
    rows = {u: assignments(api, base, project) for u, api in ann.items()}
    pairs = {u: {r["pair"]["id"] for r in rs} for u, rs in rows.items()}
    both = pairs["annotator1"] & pairs["annotator2"]
    for user, change in (("annotator1", loosen), ("annotator2", widen)):
        for row in rows[user]:
            if row["status"] != "submitted" and (
                row["pair"]["is_trial"] or row["pair"]["id"] in both
            ):
                submit(ann[user], base, row["id"], change)
    single = [r for r in rows["annotator1"] if r["pair"]["id"] not in both]
    if single:
        ann["annotator1"].post(
            f"{base}/api/assignments/{single[-1]['id']}/flag/",
            json={"reason": "not_paraphrase", "note": "the second sentence adds a claim"},
            timeout=30,
        )
    if len(single) > 1:
        detail = ann["annotator1"].get(f"{base}/api/assignments/{single[1]['id']}/").json()
        ann["annotator1"].put(
            f"{base}{detail['urls']['annotation']}",
            json={"version": 0, "links": detail["seed"]["links"]},
            timeout=30,
        )
    job = lead.post(f"{base}/api/reports/", json={"project": project, "samples": 200}, timeout=30)
    job.raise_for_status()
    url = job.json()["url"]
    for _ in range(300):
        state = lead.get(f"{base}{url}", timeout=30).json()
        if state["finished"]:
            print("report job:", state["status"], state.get("reason") or "")
            break
        time.sleep(1)
    return project


def log_in(page: Page, base: str, user: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", user)
    page.fill("input[name=password]", DEMO[user])
    page.click("button[type=submit], input[type=submit]")
    page.wait_for_load_state("networkidle")


def shoot(page: Page, name: str) -> None:
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(400)  # the grid and the charts paint after load
    path = OUT / f"{name}.png"
    page.screenshot(path=str(path))
    if shutil.which("convert"):
        subprocess.run(["convert", str(path), "-colors", "64", f"PNG8:{path}"], check=True)
    print(f"{path.relative_to(OUT.parent.parent)}: {path.stat().st_size // 1024} KB")


def take(base: str, project: int) -> None:
    OUT.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        anon = browser.new_page(viewport=SIZE)
        anon.goto(f"{base}/accounts/login/")
        shoot(anon, "login")

        ann = browser.new_page(viewport=SIZE)
        log_in(ann, base, "annotator1")
        ann.goto(f"{base}/projects/{project}/queue/")
        shoot(ann, "queue")
        ann.click("text=/Start|Resume/")
        ann.wait_for_selector("[role=grid]")
        ann.locator("td[data-seed='1']").first.click()  # sure seed → possible, now the annotator's
        ann.locator("td[data-seed='1']").nth(2).hover()
        shoot(ann, "grid")

        lead = browser.new_page(viewport=SIZE)
        log_in(lead, base, "lead")
        pages = {
            "project": f"/projects/{project}/",
            "members": f"/projects/{project}/members/",
            "assign": f"/projects/{project}/assign/",
            "progress": f"/projects/{project}/progress/",
            "agreement": f"/projects/{project}/agreement/",
            "disagreements": f"/projects/{project}/disagreements/",
        }
        for name, path in pages.items():
            lead.goto(base + path)
            shoot(lead, name)
        lead.goto(f"{base}/projects/{project}/disagreements/")
        first = lead.locator("table a[href*='/adjudicate/']").first
        if first.count():
            first.click()
            lead.wait_for_selector("#adj-grid td[data-i]")
            lead.locator("#adj-grid").scroll_into_view_if_needed()
            shoot(lead, "adjudication")
        browser.close()


LEAD_SIZES = ({"width": 1400, "height": 900}, {"width": 1024, "height": 700})
LEAD_PAGES = (
    "", "pairs/", "assign/", "progress/", "agreement/", "disagreements/", "adjudicate/",
    "review/", "discussions/", "settings/", "members/", "import/", "documents/", "export/",
)  # fmt: skip


def take_lead_pages(base: str, project: int, folder: Path) -> None:
    """Every lead page at both sizes, whole, into ``folder`` (name-WIDTHxHEIGHT.png)."""
    folder.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        for size in LEAD_SIZES:
            lead = browser.new_page(viewport=size)
            log_in(lead, base, "lead")
            urls = {(path.strip("/") or "project"): f"/projects/{project}/{path}"
                    for path in LEAD_PAGES}  # fmt: skip
            urls["new-project"] = "/projects/new/"
            lead.goto(f"{base}/projects/{project}/adjudicate/")
            link = lead.locator("table a[href*='/adjudicate/']").first
            if link.count():
                urls["adjudication"] = link.get_attribute("href")
            lead.goto(f"{base}/projects/{project}/pairs/")
            link = lead.locator("table a[href*='/pairs/']").first
            if link.count():
                urls["pair-view"] = link.get_attribute("href")
                urls["pair-view-overlay"] = link.get_attribute("href") + "?view=overlay"
            for name, path in urls.items():
                lead.goto(base + path)
                lead.wait_for_load_state("networkidle")
                lead.wait_for_timeout(300)  # the grid and the charts paint after load
                out = folder / f"{name}-{size['width']}x{size['height']}.png"
                lead.screenshot(path=str(out), full_page=True)
                print(out)
            lead.context.close()
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="http://127.0.0.1:8014")
    parser.add_argument("--prepare", action="store_true", help="create work and a report first")
    parser.add_argument(
        "--lead-pages", type=Path, metavar="DIR", help="every lead page at both sizes into DIR"
    )
    args = parser.parse_args()
    if args.prepare:
        project = prepare(args.base)
    else:
        lead = api_session(args.base, "lead")
        project = lead.get(f"{args.base}/api/projects/", timeout=30).json()["results"][0]["id"]
    if args.lead_pages:
        take_lead_pages(args.base, project, args.lead_pages)
    else:
        take(args.base, project)


if __name__ == "__main__":
    main()
