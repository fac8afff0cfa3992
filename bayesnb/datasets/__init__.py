"""Small data sets shipped with bayesnb, each with its source and licence.

=====================  =================================================  ==============
loader                 source                                             licence
=====================  =================================================  ==============
``play_tennis``        PlayTennis table of seeds 001 and 004 (14 days;    facts, typed in
                       T. Mitchell, *Machine Learning*, 1997, table 3.2)
``soccer_games``       seed 003's three games of the soccer team          facts, typed in
``temperature``        seed 001's continuous temperature example          facts, typed in
``house_votes_84``     Congressional Voting Records, J. Schlimmer (1987), CC BY 4.0
                       UCI Machine Learning Repository
``sms_spam``           SMS Spam Collection v.1, T. A. Almeida,            CC BY 4.0
                       J. M. Gómez Hidalgo, A. Yamakami, DocEng 2011;
                       UCI Machine Learning Repository
``old_faithful``       R ``datasets::faithful`` (Azzalini & Bowman 1990;  public data
                       Härdle 1991)
=====================  =================================================  ==============
"""

from __future__ import annotations

from importlib import resources

import numpy as np
import pandas as pd

__all__ = [
    "house_votes_84",
    "old_faithful",
    "play_tennis",
    "sms_spam",
    "soccer_games",
    "temperature",
]

_PLAY_TENNIS = """\
day,outlook,temperature,humidity,wind,play
D1,Sunny,Hot,High,Weak,No
D2,Sunny,Hot,High,Strong,No
D3,Overcast,Hot,High,Weak,Yes
D4,Rain,Mild,High,Weak,Yes
D5,Rain,Cool,Normal,Weak,Yes
D6,Rain,Cool,Normal,Strong,No
D7,Overcast,Cool,Normal,Strong,Yes
D8,Sunny,Mild,High,Weak,No
D9,Sunny,Cool,Normal,Weak,Yes
D10,Rain,Mild,Normal,Weak,Yes
D11,Sunny,Mild,Normal,Strong,Yes
D12,Overcast,Mild,High,Strong,Yes
D13,Overcast,Hot,Normal,Weak,Yes
D14,Rain,Mild,High,Strong,No
"""


def _path(name: str):
    return resources.files(__name__).joinpath("data", name)


def play_tennis() -> pd.DataFrame:
    """The 14 PlayTennis days (seeds 001, 004), indexed by day, all string columns.

    Examples
    --------
    >>> import bayesnb as bnb
    >>> tennis = bnb.datasets.play_tennis()
    >>> tennis.shape, tennis["play"].value_counts().to_dict()
    ((14, 5), {'Yes': 9, 'No': 5})
    >>> tennis.loc["D1"].tolist()
    ['Sunny', 'Hot', 'High', 'Weak', 'No']
    """
    from io import StringIO

    return pd.read_csv(StringIO(_PLAY_TENNIS), index_col="day", dtype=str)


def soccer_games() -> pd.DataFrame:
    """Seed 003's observed games: win, loss, loss (column ``win``, Boolean).

    Examples
    --------
    One win in three games: under a Beta(2, 2) prior the posterior mean of the
    winning probability is (1 + 2)/(3 + 4).

    >>> import bayesnb as bnb
    >>> games = bnb.datasets.soccer_games()
    >>> games["win"].tolist()
    [True, False, False]
    >>> wins, n = int(games["win"].sum()), len(games)
    >>> float(bnb.Beta(2, 2).posterior([n - wins, wins]).beta_mean())
    0.429
    """
    return pd.DataFrame({"win": [True, False, False]}, index=["X1", "X2", "X3"])


def temperature() -> pd.DataFrame:
    """Seed 001's continuous example: temperatures on 9 "Yes" and 5 "No" days.

    Examples
    --------
    >>> import bayesnb as bnb
    >>> temps = bnb.datasets.temperature()
    >>> temps.groupby("play")["temperature"].agg(["count", "mean"]).round(2)
          count   mean
    play
    No        5  23.88
    Yes       9  21.64
    """
    yes = [25.2, 19.3, 18.5, 21.7, 20.1, 24.3, 22.8, 23.1, 19.8]
    no = [27.3, 30.1, 17.4, 29.5, 15.1]
    return pd.DataFrame({"temperature": yes + no, "play": ["Yes"] * len(yes) + ["No"] * len(no)})


def house_votes_84() -> pd.DataFrame:
    """435 members of the 1984 US House: ``party`` and 16 votes ``V1``..``V16``.

    Votes are the strings ``"y"``/``"n"``; a missing vote stays missing (392 cells).
    Source: Congressional Voting Records, J. Schlimmer (1987), UCI Machine Learning
    Repository (as in R's ``mlbench::HouseVotes84``); licence CC BY 4.0.

    Examples
    --------
    >>> import bayesnb as bnb
    >>> votes = bnb.datasets.house_votes_84()
    >>> votes.shape, int(votes.isna().sum().sum())
    ((435, 17), 392)
    >>> votes["party"].value_counts().to_dict()
    {'democrat': 267, 'republican': 168}
    """
    with _path("house_votes_84.csv").open() as fh:
        df = pd.read_csv(fh, dtype=str, keep_default_na=False, na_values=[""])
    return df.rename(columns={"Class": "party"})


def sms_spam() -> pd.DataFrame:
    """5,574 SMS messages with ``label`` (``ham``/``spam``) and ``text``.

    Source: SMS Spam Collection v.1, T. A. Almeida, J. M. Gómez Hidalgo and
    A. Yamakami, "Contributions to the Study of SMS Spam Filtering: New Collection and
    Results", DocEng 2011; UCI Machine Learning Repository. Licence: CC BY 4.0.

    Examples
    --------
    >>> import bayesnb as bnb
    >>> sms = bnb.datasets.sms_spam()
    >>> sms.shape, sms["label"].value_counts().to_dict()
    ((5574, 2), {'ham': 4827, 'spam': 747})
    """
    rows = []
    with _path("SMSSpamCollection.tsv").open(encoding="utf-8") as fh:
        for line in fh:
            label, _, text = line.rstrip("\n").partition("\t")
            rows.append((label, text))
    return pd.DataFrame(rows, columns=["label", "text"])


def old_faithful() -> pd.DataFrame:
    """272 Old Faithful eruptions: ``eruptions`` and ``waiting`` (minutes).

    Examples
    --------
    >>> import bayesnb as bnb
    >>> faithful = bnb.datasets.old_faithful()
    >>> faithful.shape, faithful.mean().round(2).to_dict()
    ((272, 2), {'eruptions': 3.49, 'waiting': 70.9})
    """
    with _path("old_faithful.csv").open() as fh:
        return pd.read_csv(fh, dtype=np.float64)
