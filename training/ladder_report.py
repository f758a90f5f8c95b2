"""``arena ladder report DB``: everything a reader needs to trust a ladder, from its database.

``arena ladder report DB [--out DIR] [--game GAME] [--anchor NAME] [--replays N]``

For every game and configuration stored in the database it writes, under ``DIR``
(default: ``report`` beside the database):

* ``report.md``: per game the ranking table (rank, anchored rating with its 95 % interval,
  alpha-Rank mass, Nash-averaging mixture and payoff, OpenSkill mu / sigma / ordinal,
  wins-draws-losses, games), which statistic ranks and why, any head-to-head result the
  ranking contradicts, and the head-to-head table (win and draw rates with Wilson 95 %
  intervals and game counts);
* PNG plots per game: anchored ratings with 95 % bars, and OpenSkill mu +- sigma with
  the ordinal (mu - 3 sigma) marked apart (``*_ratings.png``), the score heatmap ordered by rank with the interval and game count
  in every cell (``*_heatmap.png``), the anchored ratings over the stored games
  (``*_over_time.png``);
* ``report.html``: one self-contained page (plots inline) with the same tables, each
  pairing linking to replay pages of its games (``replays/*.html``, written with
  ``training.replay`` from the game records the database holds; a database from before
  game records has none, and the report says so).

The statistics are those of ``training.ladder_stats`` (its docstring says how each is
computed); the ranking rule is stated in the report itself.
"""

from __future__ import annotations

import base64
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

import numpy as np

from envs.core import cli_text
from training.ladder_records import match_from_row
from training.ladder_stats import HeadToHead, LadderStats, ladder_stats, ratings_over_time
from training.ratings import AgentRating, MatchRecord, compute_ratings

RANK_RULE = (
    "Ranked by head to head: the order that contradicts the fewest pairings (an agent above"
    " one that scored more than half against it), then the anchored rating. The anchored"
    " rating is a Bradley-Terry fit of all pairwise results on the Elo scale, {anchor} = 0, so"
    " ladders with the same anchor compare. OpenSkill's ordinal (mu - 3 sigma) is shown but"
    " does not rank: it penalises an agent for its uncertainty and can put it above an"
    " agent that beats it."
)


@dataclass
class Section:
    """One game and configuration of the database."""

    game: str
    config: str
    records: list[MatchRecord]
    names: list[str]
    stats: LadderStats
    openskill: dict[str, AgentRating]
    plots: dict[str, Path] = field(default_factory=dict)
    replays: dict[tuple[str, str], list[tuple[str, str]]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # records that no longer replay


def read_matches(db: str | Path) -> dict[tuple[str, str], list[MatchRecord]]:
    """Every stored game, grouped by (game, config), from any schema version."""
    p = Path(db)
    if not p.exists():
        raise FileNotFoundError(f"no ladder database {p}")
    conn = sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT game, config, seating, game_index, agents, rewards, ranks FROM matches"
            " ORDER BY game, config, game_index, seating"
        ).fetchall()
    except sqlite3.OperationalError as exc:
        raise ValueError(f"{p} is not a ladder database ({exc})") from None
    finally:
        conn.close()
    out: dict[tuple[str, str], list[MatchRecord]] = {}
    for game, config, *row in rows:
        out.setdefault((game, config), []).append(match_from_row(*row))
    return out


def build_sections(
    db: str | Path, game: str | None = None, anchor: str = "random"
) -> list[Section]:
    """Statistics of every (game, config) in the database (``game``: only that one)."""
    out = []
    for (g, config), recs in sorted(read_matches(db).items()):
        if game is not None and g != game:
            continue
        names = sorted({a for m in recs for a in m.agents})
        if len(names) < 2:
            continue
        stats = ladder_stats(recs, names, anchor)
        skill = {r.name: r for r in compute_ratings(recs, names)}
        out.append(Section(g, config, recs, names, stats, skill))
    if not out:
        raise ValueError(f"{db} holds no ladder games" + (f" of {game}" if game else ""))
    return out


def _stem(sec: Section) -> str:
    return f"{sec.game}_{sec.config.replace('=', '').replace(',', '_')}"


def plot_openskill(ax: Any, ratings: Sequence[AgentRating], title: str) -> None:
    """OpenSkill mu +- sigma per agent, the ordinal (mu - 3 sigma) marked apart, on ``ax``
    (agents in the given order). Shared by the report and ``arena ladder``'s quick plots."""
    x = np.arange(len(ratings))
    mu = np.array([r.mu for r in ratings])
    sg = np.array([r.sigma for r in ratings])
    ax.errorbar(x, mu, yerr=sg, fmt="s", capsize=6, color="C2", label="mu ± sigma")
    ax.scatter(x, mu - 3 * sg, marker="v", color="C3", zorder=3, label="ordinal = mu - 3 sigma")
    ax.set_xticks(x, [r.name for r in ratings], rotation=20, ha="right")
    ax.set_ylabel("OpenSkill (PlackettLuce)")
    ax.set_title(title)
    ax.legend(fontsize=8, loc="best")


def plot_heatmap(h: HeadToHead, title: str, path: Path) -> Path:
    """The score heatmap of row agent vs column agent (in ``h.names`` order, the rank order
    where callers rank), each met pair's cell with its Wilson 95 % interval and game count.

    Why one function: the report and ``arena ladder``'s quick plots draw the same matrix,
    and a score without its count and interval reads as more certain than it is.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names, k, s = h.names, len(h.names), h.score()
    fig, ax = plt.subplots(figsize=(1.7 * k + 3, 1.3 * k + 2))
    im = ax.imshow(np.where(np.isfinite(s), s, np.nan), vmin=0.0, vmax=1.0, cmap="RdYlGn")
    ax.set_xticks(range(k), names, rotation=30, ha="right")
    ax.set_yticks(range(k), names)
    for i in range(k):
        for j in range(k):
            n = int(h.games[i, j])
            if i == j or n == 0:
                continue
            lo, hi = h.interval(i, j)
            ax.text(j, i, f"{s[i, j]:.2f}\n[{lo:.2f}, {hi:.2f}]\nn={n}", ha="center",
                    va="center", fontsize=8)  # fmt: skip
    ax.set_xlabel("opponent (rank order)")
    ax.set_ylabel("agent (rank order)")
    ax.set_title(title)
    fig.colorbar(im, ax=ax, fraction=0.046)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def write_plots(sec: Section, out: Path) -> dict[str, Path]:
    """The three PNG plots of a section (module docstring)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    st = sec.stats
    names = st.names
    k = len(names)
    stem = _stem(sec)
    paths = {
        "ratings": out / f"{stem}_ratings.png",
        "heatmap": out / f"{stem}_heatmap.png",
        "over_time": out / f"{stem}_over_time.png",
    }
    x = np.arange(k)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(max(7.0, 2.2 * k + 3), 4))
    half = np.where(np.isfinite(st.anchored.half95), st.anchored.half95, 0.0)
    a1.errorbar(x, st.anchored.rating, yerr=half, fmt="o", capsize=6, color="C0")
    a1.axhline(0.0, color="grey", lw=0.8, ls=":")
    a1.set_xticks(x, names, rotation=20, ha="right")
    a1.set_ylabel(f"anchored rating (Elo scale, {st.anchored.anchor} = 0)")
    a1.set_title("rating ± 95 % (rank order)")
    plot_openskill(
        a2, [sec.openskill[n] for n in names], "OpenSkill, for reference (does not rank)"
    )
    fig.suptitle(f"{sec.game} ({sec.config}, {len(sec.records)} games)")
    fig.tight_layout()
    fig.savefig(paths["ratings"], dpi=100)
    plt.close(fig)

    plot_heatmap(st.h2h, f"{sec.game}: score of row vs column, Wilson 95 %", paths["heatmap"])

    ns, r = ratings_over_time(sec.records, names, st.anchored.anchor)
    fig, ax = plt.subplots(figsize=(7, 4))
    for i, name in enumerate(names):
        ax.plot(ns, r[:, i], marker=".", label=name)
    ax.set_xlabel("games stored (canonical order: game index, then seating)")
    ax.set_ylabel(f"anchored rating ({st.anchored.anchor} = 0)")
    ax.set_title(f"{sec.game}: rating over time")
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(paths["over_time"], dpi=100)
    plt.close(fig)
    return paths


def _pair_key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def write_replays(db: str | Path, sec: Section, out: Path, per_pair: int) -> None:
    """Replay pages of up to ``per_pair`` games of each pairing (from the stored records)."""
    from envs.core.records import ReplayMismatch
    from training.ladder_records import list_records, load_record
    from training.replay import write_replay

    if per_pair <= 0:
        return
    rows = list_records(db, sec.game, sec.config)
    if not rows:
        sec.problems.append(
            "No replays: the database holds no game records of these games (they were"
            " stored before schema version 2)."
        )
    count: dict[tuple[str, str], int] = {}
    for rid, _, _, seating, idx in rows:
        agents = seating.split("|")
        pairs = {_pair_key(a, b) for a in agents for b in agents if a != b}
        if all(count.get(p, 0) >= per_pair for p in pairs):
            continue
        rec = load_record(db, rid)
        name = f"replays/{_stem(sec)}_{rid}.html"
        try:
            write_replay(rec, out / name, f"{sec.game}: {' vs '.join(agents)} (game {idx})")
        except (ReplayMismatch, ValueError) as exc:  # e.g. recorded before a rules fix
            ver = rec.versions.get("tabletop-arena", "?")
            sec.problems.append(f"record {rid} does not replay ({exc}; recorded with {ver})")
            continue
        label = f"{' vs '.join(agents)} #{idx}"
        for p in pairs:
            if count.get(p, 0) < per_pair:
                count[p] = count.get(p, 0) + 1
                sec.replays.setdefault(p, []).append((label, name))


def _pct(lo_hi: tuple[float, float]) -> str:
    return f"[{100 * lo_hi[0]:.0f}, {100 * lo_hi[1]:.0f}]"


def ranking_rows(sec: Section) -> list[list[str]]:
    """The ranking table (header first)."""
    st = sec.stats
    rows = [["rank", "agent", f"rating ({st.anchored.anchor}=0)", "α-Rank", "Nash p",
             "Nash payoff", "mu", "sigma", "ordinal", "W-D-L", "games"]]  # fmt: skip
    for i, n in enumerate(st.names):
        sk = sec.openskill[n]
        half = st.anchored.half95[i]
        hw = "anchor" if n == st.anchored.anchor else f"± {half:.0f}"
        rows.append(
            [
                str(i + 1),
                n,
                f"{st.anchored.rating[i]:+.0f} {hw}",
                f"{st.alpha[i]:.3f}",
                f"{st.nash.mixture[i]:.3f}",
                f"{st.nash.skill[i]:+.3f}",
                f"{sk.mu:.2f}",
                f"{sk.sigma:.2f}",
                f"{sk.ordinal:.2f}",
                f"{sk.wins}-{sk.draws}-{sk.losses}",
                str(sk.games),
            ]
        )
    return rows


def pair_rows(sec: Section) -> list[list[str]]:
    """Head to head per pairing, higher-ranked agent first (header first)."""
    h = sec.stats.h2h
    rows = [["pairing", "games", "win %", "draw %", "loss %", "score", "replays"]]
    k = len(h.names)
    for i in range(k):
        for j in range(i + 1, k):
            n = int(h.games[i, j])
            if n == 0:
                continue
            w, d, lo = int(h.wins[i, j]), int(h.draws[i, j]), int(h.losses[i, j])
            s = (w + 0.5 * d) / n
            rows.append(
                [
                    f"{h.names[i]} vs {h.names[j]}",
                    str(n),
                    f"{100 * w / n:.1f} {_pct(h.interval(i, j, 'win'))}",
                    f"{100 * d / n:.1f} {_pct(h.interval(i, j, 'draw'))}",
                    f"{100 * lo / n:.1f}",
                    "{:.3f} [{:.2f}, {:.2f}]".format(s, *h.interval(i, j)),
                    str(len(sec.replays.get(_pair_key(h.names[i], h.names[j]), []))),
                ]
            )
    return rows


def _md_table(rows: Sequence[Sequence[str]]) -> str:
    out = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    out += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(out)


def _notes(sec: Section) -> list[str]:
    st = sec.stats
    out = [RANK_RULE.format(anchor=st.anchored.anchor)]
    if st.contradicted:
        out.append(
            "Head-to-head cycle: the ranking contradicts "
            + "; ".join(f"{lo} scored {s:.2f} against {hi}" for hi, lo, s in st.contradicted)
            + " (no order agrees with every pairing)."
        )
    else:
        out.append("The ranking agrees with every head-to-head result.")
    out += sec.problems
    out.append(
        f"α-Rank: OpenSpiel egt.alpharank, single population, α → ∞. Nash averaging: {st.nash.solver}."
        " Intervals: Wilson 95 %."
    )
    return out


def markdown(sections: Sequence[Section]) -> str:
    """``report.md`` (module docstring)."""
    parts = ["# Ladder report", ""]
    for sec in sections:
        parts += [f"## {sec.game} ({sec.config}, {len(sec.records)} games)", ""]
        parts += [_md_table(ranking_rows(sec)), ""]
        parts += [*(f"- {n}" for n in _notes(sec)), ""]
        parts += ["Head to head (row agent's rates, higher-ranked first):", ""]
        parts += [_md_table(pair_rows(sec)), ""]
        for kind, path in sec.plots.items():
            parts.append(f"![{kind}]({path.name})")
        parts.append("")
    return "\n".join(parts)


def _html_table(rows: Sequence[Sequence[str]], links: Sequence[str] | None = None) -> str:
    out = ["<table><tr>" + "".join(f"<th>{escape(c)}</th>" for c in rows[0]) + "</tr>"]
    for k, r in enumerate(rows[1:]):
        cells = [f"<td>{escape(c)}</td>" for c in r]
        if links is not None:
            cells[-1] = f"<td>{links[k]}</td>"
        out.append("<tr>" + "".join(cells) + "</tr>")
    return "\n".join(out + ["</table>"])


def html(sections: Sequence[Section]) -> str:
    """``report.html``: one page, plots inline as data URIs, pairings linked to replays."""
    body = []
    for sec in sections:
        body.append(f"<h2>{escape(sec.game)} ({escape(sec.config)}, {len(sec.records)} games)</h2>")
        body.append(_html_table(ranking_rows(sec)))
        body.append("<ul>" + "".join(f"<li>{escape(n)}</li>" for n in _notes(sec)) + "</ul>")
        rows = pair_rows(sec)
        links = []
        for r in rows[1:]:
            a, b = r[0].split(" vs ")
            reps = sec.replays.get(_pair_key(a, b), [])
            links.append(
                " ".join(f'<a href="{escape(p)}">{escape(lab)}</a>' for lab, p in reps)
                or "no records"
            )
        body.append("<h3>Head to head</h3>")
        body.append(_html_table(rows, links))
        for kind, path in sec.plots.items():
            data = base64.b64encode(path.read_bytes()).decode()
            body.append(f'<p><img alt="{kind}" src="data:image/png;base64,{data}"></p>')
    css = (
        "body{font-family:DejaVu Sans,Arial,sans-serif;margin:20px;color:#222}"
        "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #bbb;"
        "padding:3px 8px;font-size:13px;text-align:right}th{background:#eee}"
        "td:nth-child(1),td:nth-child(2){text-align:left}img{max-width:100%}"
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Ladder report'
        f"</title><style>{css}</style></head><body><h1>Ladder report</h1>"
        + "\n".join(body)
        + "</body></html>"
    )


def build_report(
    db: str | Path,
    out: str | Path | None = None,
    game: str | None = None,
    anchor: str = "random",
    replays: int = 2,
) -> dict[str, Path]:
    """Write the report (module docstring); returns the paths of ``report.md`` and
    ``report.html``."""
    dbp = Path(db)
    outp = Path(out) if out is not None else dbp.parent / "report"
    outp.mkdir(parents=True, exist_ok=True)
    sections = build_sections(dbp, game, anchor)
    for sec in sections:
        sec.plots = write_plots(sec, outp)
        write_replays(dbp, sec, outp, replays)
    md = outp / "report.md"
    md.write_text(markdown(sections), encoding="utf-8")
    page = outp / "report.html"
    page.write_text(html(sections), encoding="utf-8")
    return {"markdown": md, "html": page}


def main(argv: list[str] | None = None) -> int:
    """``arena ladder report`` entry point."""
    ap = cli_text.ArgumentParser(
        prog="arena ladder report",
        description="Ranking, head-to-head intervals, anchored ratings, alpha-Rank, Nash"
        " averaging, plots and replay links from a ladder database.",
    )
    ap.add_argument("db", help="the ladder's SQLite database")
    ap.add_argument("--out", default=None, metavar="DIR", help="default: report/ beside DB")
    ap.add_argument("--game", default=None, help="only this game")
    ap.add_argument("--anchor", default="random", help="agent rated 0 (default random)")
    ap.add_argument("--replays", type=int, default=2, metavar="N", help="replays per pairing")
    args = ap.parse_args(argv)
    try:
        paths = build_report(args.db, args.out, args.game, args.anchor, args.replays)
    except (ValueError, FileNotFoundError) as exc:
        print(f"arena ladder report: {exc}")
        return 2
    print(Path(paths["markdown"]).read_text(encoding="utf-8"))
    for kind, p in paths.items():
        print(f"{kind}: {p}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
