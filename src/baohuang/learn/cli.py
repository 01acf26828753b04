"""``baohuang train``: train the ``learned`` bot by Deep Monte-Carlo self-play
(needs ``pip install 'baohuang[train]'``), or ``--export`` a run's best network into a
weights file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

__all__ = ["train_command"]


def train_command(
    run_dir: Annotated[Path, typer.Argument(help="Directory of the run (checkpoint, curves, "
                                            "snapshots); an existing run resumes from its "
                                            "checkpoint.")],
    minutes: Annotated[float, typer.Option(min=0.0, help="Stop after this much training time "
                                           "in all, counting earlier sessions of the run.")
                       ] = 60.0,
    rules: Annotated[str, typer.Option(help="Rule preset of the games.")] = "shandong",
    tables: Annotated[int, typer.Option(min=1, help="Games played side by side (batched "
                                        "inference).")] = 32,
    epsilon: Annotated[float, typer.Option(min=0.0, max=1.0, help="Exploration rate.")] = 0.03,
    mix: Annotated[float, typer.Option(min=0.0, max=1.0, help="Share of games in which some "
                                       "seats are the heuristic bot.")] = 0.5,
    batch: Annotated[int, typer.Option(min=1, help="Samples per update.")] = 256,
    lr: Annotated[float, typer.Option(help="Adam's learning rate.")] = 3e-4,
    eval_minutes: Annotated[float, typer.Option(help="Evaluate against the heuristic bot "
                                                "every this many minutes of training.")
                            ] = 15.0,
    eval_deals: Annotated[int, typer.Option(min=1, help="Deals per evaluation (10 games "
                                            "each).")] = 40,
    seed: Annotated[int, typer.Option(help="Seed of the network and the games.")] = 0,
    threads: Annotated[int, typer.Option(min=1, help="PyTorch threads.")] = 1,
    init: Annotated[Path | None, typer.Option(help="A new run starts from these weights "
                                              "(.npz, e.g. baohuang imitate's) instead of "
                                              "random ones.")] = None,
    learn_heuristic: Annotated[bool, typer.Option(help="The heuristic seats' decisions are "
                                                  "training samples too.")] = False,
    warm_games: Annotated[int, typer.Option(min=0, help="A new run first imitates the "
                                            "heuristic bot: this many of its games are "
                                            "recorded and fitted (0: no warm start).")] = 0,
    warm_steps: Annotated[int, typer.Option(min=1, help="Updates of the warm start's "
                                            "fit.")] = 16000,
    imitation: Annotated[float, typer.Option(min=0.0, help="Weight of the warm start's "
                                             "imitation loss (on its recorded games, "
                                             "RUN_DIR/demos.npz) kept in every update.")
                         ] = 0.0,
    guided: Annotated[bool, typer.Option(help="A new run's network also reads the heuristic "
                                         "bot's choice and keeps it unless another action "
                                         "is worth --margin points more.")] = False,
    margin: Annotated[float | None, typer.Option(min=0.0, help="A guided network's margin "
                                                 "(default 0.5); with --export, the "
                                                 "exported file's.")] = None,
    warm_imitation: Annotated[float | None, typer.Option(min=0.0, help="Weight of the "
                                                         "imitation loss in the warm start's "
                                                         "fit (default 3; 0 when guided).")
                              ] = None,
    warm_lr: Annotated[float, typer.Option(help="Learning rate of the warm start's fit.")
                       ] = 1e-3,
    demo_ce: Annotated[float, typer.Option(min=0.0, help="Weight of the cross-entropy in "
                                           "the --imitation loss (0: the recorded games' "
                                           "scores alone).")] = 1.0,
    export: Annotated[Path | None, typer.Option(help="Do not train: copy the run's best "
                                                "network (best.npz) to this file.")] = None,
) -> None:
    """Train the `learned` bot by self-play (Deep Monte-Carlo) / 自我对弈训练 learned 机器人."""
    if export is not None:
        best = run_dir / "best.npz"
        if not best.exists():
            raise typer.BadParameter(f"{best} does not exist (no evaluation yet) / "
                                     f"还没有评估过的网络")
        if margin is None:
            shutil.copyfile(best, export)
        else:
            from .model import load_weights, save_weights

            save_weights(export, load_weights(best) | {"margin": np.array(margin, np.float32)})
        typer.echo(f"{best} -> {export}")
        return
    try:
        from .train import Config, train
    except ImportError as exc:
        raise typer.BadParameter(f"training needs PyTorch ({exc.name} is missing): "
                                 "pip install 'baohuang[train]' / 训练需要 PyTorch") from None
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    if warm_games and not (run_dir / "checkpoint.pt").exists():
        from .warmstart import warm_start

        typer.echo(f"warm start 模仿启发式: {warm_games} heuristic games")
        init = warm_start(run_dir, games=warm_games, steps=warm_steps, rules=rules, seed=seed,
                          guided=guided, init=init, lr=warm_lr,
                          imitation=(0.0 if guided else 3.0) if warm_imitation is None
                          else warm_imitation,
                          report=lambda row: typer.echo(json.dumps(row)))
    cfg = Config(run_dir=run_dir, minutes=minutes, rules=rules, tables=tables, epsilon=epsilon,
                 mix=mix, batch=batch, lr=lr, eval_minutes=eval_minutes, eval_deals=eval_deals,
                 seed=seed, threads=threads, init=init,
                 learn_heuristic=learn_heuristic, imitation=imitation, demo_ce=demo_ce,
                 guided=guided, margin=0.5 if margin is None else margin,
                 demos=run_dir / "demos.npz" if imitation else None)
    with Progress(TextColumn("[bold]train 训练"), BarColumn(),
                  TextColumn("{task.percentage:>3.0f}%"), TimeElapsedColumn(),
                  TextColumn("{task.fields[info]}")) as progress:
        task = progress.add_task("train", total=minutes * 60, info="")

        def report(row: dict[str, Any]) -> None:
            best = row["best"]
            progress.update(task, completed=row["elapsed_s"],
                            info=f"games {row['games']:,}  updates {row['updates']:,}  "
                                 f"loss {row['loss']:.4f}  best vs heuristic "
                                 f"{'-' if best is None else f'{best:+.3f}'}")

        result = train(cfg, report)
    typer.echo(json.dumps({k: v for k, v in result.items() if k != "history"}))
