"""Locust users for ``benchmarks/load.py``: annotators autosaving in the grid.

Each simulated annotator logs in through the login form (session + CSRF, as the browser does),
reads its queue, opens a pair (the grid's GET) and autosaves it every SAVE_INTERVAL seconds
with the version the server last gave it, moving to its next pair every SAVES_PER_PAIR saves.
A 409 is followed honestly (take the server's version, send the edit again); a 503 is retried
after its Retry-After. Every other tick it also asks /healthz: the anchor, a trivial view
measured under the same load.

Run by load.py (``python -m locust -f benchmarks/locustfile.py --headless ...``) with
LOAD_CREDENTIALS (a JSON file of usernames and passwords, one per simulated user) and
LOAD_RESULT (where this writes every acknowledged save and every latency at the end).
"""

from __future__ import annotations

import itertools
import json
import os
import time

import gevent
from locust import HttpUser, constant, events, task

SAVE_INTERVAL = float(os.environ.get("LOAD_SAVE_INTERVAL", "2"))
SAVES_PER_PAIR = int(os.environ.get("LOAD_SAVES_PER_PAIR", "10"))
# seconds of load counted from the moment every user has logged in (0: Locust's -t decides)
DURATION = float(os.environ.get("LOAD_DURATION", "0"))

_credentials = json.loads(open(os.environ["LOAD_CREDENTIALS"]).read())  # noqa: SIM115
_next_user = itertools.count()
# what every simulated user saw: kept in this process, written once when the test stops
RESULT: dict = {
    "acknowledged": [],
    "latency": {},  # from the moment every user has logged in (the steady state)
    "ramp_up": {},  # before that: logins hash passwords and crowd the CPU
    "status": {},
    "conflicts": 0,
    "retries": 0,
    "measured_seconds": 0.0,
}
_measured_from: list[float] = []
_logged_in = itertools.count(1)


def record(name: str, started: float, status: int) -> None:
    """One answer's latency (ms) and status; statuses are counted over the whole run."""
    RESULT["latency"].setdefault(name, []).append((time.perf_counter() - started) * 1000)
    key = f"{name} {status}"
    RESULT["status"][key] = RESULT["status"].get(key, 0) + 1


@events.test_stop.add_listener
def _write_result(environment, **kwargs) -> None:
    if _measured_from:
        RESULT["measured_seconds"] = time.monotonic() - _measured_from[0]
    with open(os.environ["LOAD_RESULT"], "w") as fh:
        json.dump(RESULT, fh)


class Annotator(HttpUser):
    wait_time = constant(SAVE_INTERVAL)

    def on_start(self) -> None:
        me = _credentials[next(_next_user) % len(_credentials)]
        self.client.get("/accounts/login/", name="login page")
        started = time.perf_counter()
        response = self.client.post(
            "/accounts/login/",
            data={
                "username": me["username"],
                "password": me["password"],
                "csrfmiddlewaretoken": self.client.cookies.get("csrftoken", ""),
            },
            name="login",
            allow_redirects=False,
        )
        record("login", started, response.status_code)
        if response.status_code != 302:
            raise RuntimeError(f"login of {me['username']} answered {response.status_code}")
        queue = self.client.get("/api/assignments/?page_size=1000", name="queue").json()
        self.queue = [row["id"] for row in queue["results"]]
        if next(_logged_in) == self.environment.runner.target_user_count:
            RESULT["ramp_up"], RESULT["latency"] = RESULT["latency"], {}
            _measured_from.append(time.monotonic())
            if DURATION:
                gevent.spawn_later(DURATION, self.environment.runner.quit)
        self.turn = 0
        self.pair_index = -1
        self.saves_here = SAVES_PER_PAIR  # open a pair on the first tick

    def headers(self) -> dict[str, str]:
        return {"X-CSRFToken": self.client.cookies.get("csrftoken", "")}

    def open_next_pair(self) -> None:
        self.pair_index = (self.pair_index + 1) % len(self.queue)
        self.assignment = self.queue[self.pair_index]
        started = time.perf_counter()
        with self.client.get(
            f"/api/assignments/{self.assignment}/", name="open pair", catch_response=True
        ) as response:
            record("open", started, response.status_code)
            data = response.json()
        self.shape = (len(data["pair"]["source"]), len(data["pair"]["target"]))
        annotation = data["annotation"] or {"version": 0, "links": []}
        self.version = annotation["version"]
        self.links = [list(link) for link in annotation["links"]]
        self.saves_here = 0

    def edit(self) -> None:
        """Toggle one cell, as a click in the grid does."""
        rows, cols = self.shape
        n = self.turn
        cell = [n % rows, (n * 7 + self.assignment) % cols]
        kept = [link for link in self.links if link[:2] != cell]
        self.links = kept if len(kept) < len(self.links) else [*kept, [*cell, "S"]]

    def save(self) -> None:
        url = f"/api/assignments/{self.assignment}/annotation/"
        for _ in range(20):
            started = time.perf_counter()
            with self.client.put(
                url,
                json={"version": self.version, "links": self.links},
                headers=self.headers(),
                name="save",
                catch_response=True,
            ) as response:
                status = response.status_code
                record("save", started, status)
                if status == 200:
                    body = response.json()
                    self.version = body["version"]
                    RESULT["acknowledged"].append([self.assignment, body["version"], body["links"]])
                    return
                if status == 409:  # someone (a lost answer of ours) saved meanwhile
                    RESULT["conflicts"] += 1
                    response.success()
                    self.version = response.json()["current"]["version"]
                    continue
                if status == 503:
                    RESULT["retries"] += 1
                    time.sleep(float(response.headers.get("Retry-After", "1")))
                    continue
                response.failure(f"save answered {status}")
                return

    @task
    def autosave(self) -> None:
        if self.saves_here >= SAVES_PER_PAIR:
            self.open_next_pair()
        self.turn += 1
        self.edit()
        self.save()
        self.saves_here += 1
        if self.turn % 2 == 0:
            started = time.perf_counter()
            with self.client.get("/healthz", name="healthz", catch_response=True) as response:
                record("healthz", started, response.status_code)
