"""Input validation: tables, targets and the binding of declarations to columns."""

from __future__ import annotations

import functools
import numbers
from collections.abc import Sequence

import numpy as np
import pandas as pd

from bayesnb import _compiled
from bayesnb._lazy import sparse
from bayesnb.errors import InputError, InputTypeError
from bayesnb.families import Bernoulli, Categorical, Family, Gaussian, Multinomial
from bayesnb.families._kernels import Labels, column_dtypes, value_array

ARRAY_BLOCK = "X"


@functools.lru_cache(maxsize=16)
def _default_names(n_columns: int) -> tuple[str, ...]:
    """``x0, x1, ...``: the column names of an array (made once per width)."""
    return tuple(f"x{i}" for i in range(n_columns))


def repeated(values) -> list:
    """The values that ``values`` holds more than once, in the order of their second
    appearance, each once."""
    seen, twice = set(), []
    for v in values:
        if v in seen and v not in twice:
            twice.append(v)
        seen.add(v)
    return twice


def _check_distinct(names: list, what: str) -> None:
    """Raise an :class:`~bayesnb.errors.InputError` (``what``, then the names given
    twice) unless ``names`` are distinct."""
    twice = repeated(names)
    if twice:
        raise InputError(f"{what} {twice[:10]!r}; rename them so every feature has its own name.")


def _check_not_stringified(rows) -> None:
    """Refuse rows (a list, not an array) mixing strings with other values, which
    NumPy turns into one string array: 1.0 would become '1.0', a category."""
    for row in rows:
        for value in np.ravel(np.asarray(row, dtype=object)):
            if not isinstance(value, str):
                raise InputError(
                    f"X is a list of rows mixing strings with other values (e.g. {value!r}), "
                    "which NumPy would turn into strings, so numbers would become categories. "
                    "Pass a DataFrame, pd.DataFrame(X), so that every column keeps its type, "
                    "or an array of one dtype."
                )


class Table:
    """A DataFrame, 2-D ndarray or scipy.sparse matrix with named columns.

    A DataFrame's columns of a plain NumPy numeric or Boolean dtype are also read as
    2-D arrays, one per dtype, made once (a view when the frame is one such block):
    :meth:`take` hands a family such columns as an array, without a pandas object per
    column, so a frame of many columns costs about what one block of them costs.
    """

    def __init__(self, data, feature_names=None):
        _check_table_type(data)
        given = None
        if isinstance(data, pd.DataFrame):
            given = data.columns.tolist()
            names = [c if type(c) is str else str(c) for c in given]
            _check_distinct(names, "X has duplicate column names")
            if feature_names is not None and [str(n) for n in feature_names] != names:
                raise InputError(
                    f"feature_names={list(feature_names)[:10]!r} was given with a DataFrame, "
                    f"whose columns {names[:10]!r} already name its features. Rename the "
                    "columns instead (X.set_axis(names, axis=1)), or leave feature_names out."
                )
            if names != given:
                data = data.set_axis(names, axis=1)
        elif sparse.issparse(data):
            data = sparse.csr_array(data)
            names = None
        else:
            rows = data
            data = np.asarray(data)
            if data.ndim != 2:
                raise InputError(
                    f"X must be 2-D (n_samples, n_features); got an array of shape "
                    f"{data.shape}. Reshape a single feature with x.reshape(-1, 1)."
                )
            if data.dtype.kind == "U" and not isinstance(rows, np.ndarray):
                _check_not_stringified(rows)
            names = None
        if names is None:
            names = (
                list(_default_names(data.shape[1]))
                if feature_names is None
                else [str(n) for n in feature_names]
            )
            if feature_names is not None:
                _check_distinct(names, "feature_names has duplicate names")
        if len(names) != data.shape[1]:
            raise InputError(
                f"feature_names has {len(names)} names for the {data.shape[1]} columns of X; "
                "give one name per column."
            )
        self.data = data
        self.names = names
        self.is_frame = isinstance(data, pd.DataFrame)
        #: A frame's own column labels (``names`` are their strings), else None.
        self.column_labels = given
        self.n_rows = data.shape[0]
        self._arrays = None
        self._dtypes = None
        self._whole = None  # a frame of one numeric dtype as one array

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n_rows, len(self.names))

    def frame_dtypes(self) -> dict | None:
        """``{column: dtype}`` of a DataFrame, keyed by the frame's own column labels
        (an integer label stays an integer; :attr:`names` holds their strings); None for
        an array or a sparse matrix. A fitted model keeps both
        (:class:`bayesnb.model.FittedModel`), so that drawn rows have the frame's labels."""
        if not self.is_frame:
            return None
        return dict(zip(self.column_labels, self.dtypes(), strict=True))

    def index_labels(self) -> np.ndarray | None:
        """A frame's index as plain labels (numbers, text or naive datetimes, which an
        xarray coordinate holds and netCDF stores), else None: an array, a sparse
        matrix, a MultiIndex, time-zone-aware or mixed labels."""
        if not self.is_frame or isinstance(self.data.index, pd.MultiIndex):
            return None
        labels = self.data.index.to_numpy()
        if labels.dtype.kind in "biufMU":
            return labels
        if labels.dtype.kind == "O" and all(isinstance(v, str) for v in labels):
            return labels.astype(str)
        return None

    def row_labels(self) -> np.ndarray:
        """The rows' labels in a posterior's ``row`` coordinate: :meth:`index_labels`,
        or positions 0..n-1."""
        labels = self.index_labels()
        return np.arange(self.n_rows) if labels is None else labels

    def check_not_empty(self, rows: bool = True) -> None:
        """Raise unless X has at least one column and (``rows``) one row: a fit needs
        both."""
        if (rows and self.n_rows == 0) or not self.names:
            what = "rows" if self.n_rows == 0 else "columns"
            raise InputError(
                f"X has no {what}: its shape is {self.shape}. Fitting needs at least one "
                "row and one feature column; check how X was selected or filtered."
            )

    def dtypes(self) -> list:
        """The dtype of every column (an array's one dtype for each), listed once."""
        if self._dtypes is None:
            frame = self.is_frame
            self._dtypes = (
                column_dtypes(self.data) if frame else [self.data.dtype] * len(self.names)
            )
        return self._dtypes

    def _numeric_arrays(self) -> dict:
        """``{column: (array, position)}`` for a frame's plain numeric columns: every
        group of columns of one NumPy dtype as one 2-D array (made once)."""
        if self._arrays is None:
            dtypes = self.dtypes()
            first = dtypes[0] if dtypes else None
            if (
                isinstance(first, np.dtype)
                and first.kind in "biuf"
                and all(d == first for d in dtypes)
            ):  # one numeric dtype throughout (a frame of one block): no loop per column
                array = self.data.to_numpy()
                self._arrays = {name: (array, i) for i, name in enumerate(self.names)}
                self._whole = array
                return self._arrays
            groups: dict = {}
            for j, dtype in enumerate(dtypes):
                if isinstance(dtype, np.dtype) and dtype.kind in "biuf":
                    groups.setdefault(dtype, []).append(j)
            arrays = {}
            for positions in groups.values():
                if len(positions) == len(self.names):
                    array = self.data.to_numpy()
                else:
                    array = self.data.iloc[:, positions].to_numpy()
                for i, j in enumerate(positions):
                    arrays[self.names[j]] = (array, i)
            self._arrays = arrays
        return self._arrays

    def take(self, columns: list[str]):
        """The sub-table of ``columns``: an array (a view, without copying, when the
        columns are adjacent, e.g. a single one) for an array, or for a DataFrame's
        columns of one plain numeric dtype; otherwise a DataFrame."""
        if self.is_frame:
            arrays = self._numeric_arrays()
            if self._whole is not None and columns == self.names:
                return self._whole
            found = [arrays.get(c) for c in columns]
            if (
                columns
                and all(f is not None for f in found)
                and all(f[0] is found[0][0] for f in found)
            ):
                return _columns_of(found[0][0], [f[1] for f in found])
            return self.data if columns == self.names else self.data[columns]
        if columns == self.names:
            return self.data
        position = {name: j for j, name in enumerate(self.names)}
        return _columns_of(self.data, [position[c] for c in columns])


def _check_table_type(data) -> None:
    """Raise an :class:`InputTypeError` naming X for what cannot be a table: None, a
    string, a dict or a scalar; and for a Series, which is one row or one column."""
    if isinstance(data, pd.Series):
        raise InputTypeError(
            f"X must be a DataFrame or a 2-D array; got a Series (name {data.name!r}, "
            f"{len(data)} entries). Make it a frame: X.to_frame() for one column, or "
            "X.to_frame().T for one row (or select rows with df.iloc[[i]])."
        )
    if data is None or isinstance(data, str | bytes | dict) or np.ndim(data) == 0:
        hint = " Make a frame of a dict of columns: pd.DataFrame(X)."
        raise InputTypeError(
            f"X must be a DataFrame or a 2-D array (or a sparse matrix); got "
            f"{type(data).__name__} {data!r:.60}.{hint if isinstance(data, dict) else ''}"
        )


def _columns_of(data, index: list[int]):
    """Columns ``index`` of a 2-D array: a view when they are adjacent."""
    if index and index == list(range(index[0], index[0] + len(index))):
        return data[:, index[0] : index[0] + len(index)]
    return data[:, index]


def split_target(X, y, target):
    """Return ``(X, y, target_name)`` from exactly one of ``y`` and a ``target`` column
    of X (an :class:`InputError` otherwise)."""
    if target is not None and y is not None:
        raise InputError(
            f"fit got both y and target={target!r}; give the labels once: y=labels, or "
            "target='column' naming a column of X."
        )
    if target is None and y is None:
        raise InputError(
            "fit needs the class of every row: pass y= or target= (y=labels, or "
            "target='column' naming a column of X); got neither."
        )
    if target is not None and not isinstance(X, pd.DataFrame):
        raise InputTypeError(
            f"target={target!r} names a column, so X must be a DataFrame; got "
            f"{type(X).__name__}. Pass the labels as y= instead."
        )
    if target is not None and target not in X.columns:
        raise InputError(
            f"target={target!r} is not a column of X; X has {list(X.columns)[:20]!r}. Name "
            "the column that holds the labels, or pass them as y."
        )
    if target is not None:
        return X.drop(columns=[target]), X[target], str(target)
    return X, y, label_name(y, X.columns if isinstance(X, pd.DataFrame) else ())


def label_name(y, columns) -> str:
    """The name of the labels ``y`` in the posterior's groups: a Series' own name,
    unless a column of X (``columns``) has it (a label made from a column, as
    ``y = X["t"] > 3``), then ``"label"``, as for unnamed labels."""
    name = getattr(y, "name", None)
    if name is None:
        return "label"
    return "label" if str(name) in {str(c) for c in columns} else str(name)


def infer_family(values, name: str = "X") -> Family:
    """The default family of a column (or of an array's one block), from its dtype
    and values:

    * Boolean, and integers that are all 0 or 1: :class:`~bayesnb.Bernoulli`;
    * floats whose observed (non-NaN) values are all 0 or 1: Bernoulli (an integer
      0/1 column with a missing value is stored as floats);
    * other floats: :class:`~bayesnb.Gaussian`;
    * anything else (strings, pandas categoricals, other integers): Categorical.

    Nullable pandas columns (``Int64``, ``boolean``, ``Float64``) follow the same rule,
    their ``pd.NA`` being missing. A numeric column with no observed value raises
    an :class:`~bayesnb.errors.InputError` naming it (``name``).
    """
    dtype = values.dtype
    if isinstance(dtype, pd.api.extensions.ExtensionDtype) and not isinstance(
        dtype, pd.CategoricalDtype
    ):
        kind = getattr(dtype, "kind", "O")
        if kind in "biuf" and hasattr(values, "to_numpy"):
            observed = values.dropna().to_numpy(dtype=float)
            if not observed.size:
                _no_observed_value(name, dtype)
            if kind == "b" or np.all((observed == 0) | (observed == 1)):
                return Bernoulli()
            return Gaussian() if kind == "f" else Categorical()
        return Categorical()
    if not isinstance(dtype, np.dtype):
        return Categorical()
    arr = values.to_numpy() if hasattr(values, "to_numpy") else np.asarray(values)
    if arr.dtype.kind not in "biuf":
        return Categorical()
    # every entry as one column (a view of a contiguous array, in either order)
    return _infer_numeric(arr.reshape(-1, 1, order="A"), name)[0]


def _infer_numeric(arr: np.ndarray, name) -> list[Family] | None:
    """The inferred family of every column of a plain 2-D array (None: not numeric).

    ``name`` is the column name(s): a list of one per column, or one name for all.
    """
    kind = arr.dtype.kind
    d = arr.shape[1]
    # One declaration of each family for every column: binding copies it per column.
    if kind == "b":
        return [Bernoulli()] * d
    if kind not in "iuf":
        return None
    # A column with a value other than 0 and 1 (or NaN) among its first rows is no
    # Bernoulli (and, for floats, has an observed value): only the others are read whole.
    head = arr[:_INFER_HEAD]
    with np.errstate(invalid="ignore"):
        binary = ((head == 0) | (head == 1) | (np.isnan(head) if kind == "f" else False)).all(
            axis=0
        )
    index = np.flatnonzero(binary)
    if index.size:
        rest = arr[:, index]
        with np.errstate(invalid="ignore"):
            missing = np.isnan(rest) if kind == "f" else np.zeros(rest.shape, bool)
            binary[index] = ((rest == 0) | (rest == 1) | missing).all(axis=0)
            observed = ~missing.all(axis=0) if arr.shape[0] else np.zeros(index.size, bool)
        if kind == "f" and not observed.all():
            j = int(index[np.flatnonzero(~observed)[0]])
            _no_observed_value(name[j] if isinstance(name, list) else name, arr.dtype)
    if kind in "iu":
        if not arr.size:
            return [Categorical()] * d
        bernoulli, categorical = Bernoulli(), Categorical()
        return [bernoulli if b else categorical for b in binary]
    bernoulli, gaussian = Bernoulli(), Gaussian()
    return [bernoulli if b else gaussian for b in binary]


#: Rows :func:`_infer_numeric` reads first: a column they show to be no Bernoulli is
#: not read whole.
_INFER_HEAD = 64


def _no_observed_value(name, dtype):
    raise InputError(
        f"column {name!r} ({dtype}) has no observed value: every entry is missing, so "
        "neither its family nor its parameters can be learnt. Drop the column, or declare "
        "its family in `features`."
    )


def _infer_frame(table: Table) -> list[Family]:
    """:func:`infer_family` of every column of a DataFrame, a whole group of columns of
    one NumPy dtype at a time (no pandas object per column)."""
    arrays = table._numeric_arrays()
    if table.names and len(arrays) == len(table.names):
        array, first = arrays[table.names[0]]
        if (
            first == 0
            and array.shape[1] == len(table.names)
            and arrays[table.names[-1]][0] is array
        ):
            # one array of every column in order (a frame of one numeric dtype)
            return _infer_numeric(array, table.names)
    families: list = [None] * len(table.names)
    groups: dict = {}
    categorical = Categorical()  # one declaration for every such column: bound together
    for j, (name, dtype) in enumerate(zip(table.names, table.dtypes(), strict=True)):
        found = arrays.get(name)
        if found is None:
            if getattr(dtype, "kind", "O") not in "biuf":  # strings, categoricals, ...
                families[j] = categorical
            else:
                families[j] = infer_family(table.data.iloc[:, j], name)
        else:
            groups.setdefault(id(found[0]), (found[0], []))[1].append((j, found[1]))
    for array, members in groups.values():
        index = [i for _, i in members]
        whole = index == list(range(array.shape[1]))
        sub = array if whole else array[:, index]
        names = [table.names[j] for j, _ in members]
        for (j, _), family in zip(members, _infer_numeric(sub, names), strict=True):
            families[j] = family
    return families


def _infer_sparse(data) -> Family:
    """A sparse matrix's family: Bernoulli when every stored value is 0 or 1 (word
    presence; NaN a missing one), Multinomial otherwise (counts; the family checks
    them)."""
    values = data.data
    if values.size and not np.all((values == 0) | (values == 1) | np.isnan(values)):
        return Multinomial()
    return Bernoulli()


def check_features(features):
    """``features`` if it is a declaration: None, a family, or ``{name: family}``."""
    if features is None or isinstance(features, Family):
        return features
    if not isinstance(features, dict):
        raise InputTypeError(
            "features must be a dict {name: family}, a single family for every column, or "
            f"None to infer the families from dtypes; got {type(features).__name__} "
            f"{features!r:.80}. E.g. features={{'age': bnb.Gaussian(), 'job': "
            "bnb.Categorical()}."
        )
    for name, family in features.items():
        if not isinstance(family, Family):
            hint = "; call it: bnb.Categorical()" if isinstance(family, type) else ""
            raise InputTypeError(
                f"features[{name!r}] must be a family such as bnb.Categorical(); got "
                f"{family!r} ({type(family).__name__}){hint}."
            )
    return features


#: Names the package's outputs give their own variables and dimensions: a feature
#: that would add one of them (:meth:`~bayesnb.families.Family.output_names`) would
#: overwrite it.
RESERVED_NAMES = {
    "class_prob": "the class probabilities in params",
    "class_count": "the class counts in counts",
    "class_label": "the classes' dimension",
    "component": "a mixture's components' dimension",
    "label": "the labels in the posterior's observed_data",
    "row": "the rows' dimension of the posterior and the intervals",
    "chain": "the posterior's chains",
    "draw": "the posterior's draws",
    "log_likelihood": "the PyMC model's likelihood term",
    "ci_bound": "the credible intervals' bounds",
    "stat": "the statistics' dimension of compare_fits's summaries",
}


def declare(features, table: Table, target=None) -> list[tuple[str, Family, list[str]]]:
    """Resolve the user's declaration into ``(name, family, columns)`` triples.

    Raises an :class:`~bayesnb.errors.InputError` when X has no column, and when two
    features' output names coincide or one is the package's own
    (:data:`RESERVED_NAMES`, and ``target``: the name of the fit's labels in the
    posterior's groups).
    """
    declared = _declare(features, table)
    reserved = dict(RESERVED_NAMES)
    if target is not None:
        reserved[target] = "the fit's labels in the posterior's groups"
    _check_output_names(declared, reserved)
    return declared


def _check_output_names(declared, reserved: dict) -> None:
    """Refuse a declaration whose features would overwrite each other's variables or
    dimensions in the outputs, or the package's own (``reserved``)."""
    owner: dict = {}
    for name, family, columns in declared:
        for out in dict.fromkeys(family.output_names(name, columns)):
            if out in reserved:
                raise InputError(
                    f"feature {name!r} ({family.kind}) would name an output {out!r}, which "
                    f"the package uses for {reserved[out]}. Rename the column (e.g. "
                    f"X.rename(columns={{{name!r}: {name + '_'!r}}})), or declare the "
                    "feature under another name with columns=[...]."
                )
            if out in owner and owner[out] != name:
                raise InputError(
                    f"features {owner[out]!r} and {name!r} would both name an output "
                    f"{out!r} in params, counts or the posterior. Rename one of the "
                    "columns, or declare one feature under another name with columns=[...]."
                )
            owner[out] = name


def _declare(features, table: Table) -> list[tuple[str, Family, list[str]]]:
    """:func:`declare` before its check of the output names."""
    table.check_not_empty(rows=False)
    if features is None:
        if not table.is_frame:  # an array is one block: its columns share a dtype
            data = table.data
            family = _infer_sparse(data) if sparse.issparse(data) else infer_family(data)
            return [(ARRAY_BLOCK, family, table.names)]
        families = _infer_frame(table)
        return [(n, f, [n]) for n, f in zip(table.names, families, strict=True)]
    if isinstance(features, Family):
        # One block over an array; one feature per named column of a DataFrame, except
        # for a family whose columns only make sense together (word counts, a joint
        # Gaussian).
        together = getattr(features, "columns_together", False)
        if features.multi_column and (not table.is_frame or together):
            return [(ARRAY_BLOCK, features, table.names)]
        return [(n, features, [n]) for n in table.names]
    check_features(features)
    out, used, present = [], {}, set(table.names)
    for name, family in features.items():
        columns = [str(c) for c in (family.columns or [name])]
        missing = [c for c in columns if c not in present]
        if missing:
            raise InputError(
                f"features[{name!r}] refers to column(s) {missing!r}, which X does not have. "
                f"X has {table.names[:20]!r}."
            )
        for c in columns:
            if c in used:
                raise InputError(
                    f"column {c!r} is declared twice in features, by {used[c]!r} and "
                    f"{name!r}; declare every column once."
                )
            used[c] = name
        out.append((str(name), family, columns))
    undeclared = [c for c in table.names if c not in used]
    if undeclared:
        raise InputError(
            f"X has column(s) {undeclared[:10]!r} that no feature declares. Declare them in "
            "`features`, or drop them from X."
        )
    return out


def encode_labels(y, n_rows: int, labels=None, *, remedy: str = ""):
    """Codes of ``y`` into sorted ``labels`` (learned when not given).

    A label of ``y`` outside given ``labels`` raises an
    :class:`~bayesnb.errors.InputError` naming it, followed by ``remedy``.

    Every label is kept as given (a list mixing strings and NaN is never turned
    into strings). A missing label (None, NaN, ``pd.NA``, NaT) raises an
    :class:`~bayesnb.errors.InputError`: supervised fitting needs the class of every
    row. So do labels of types that cannot be ordered together (strings and numbers).
    """
    if not isinstance(y, pd.Series):
        fast = _integer_codes(y, n_rows)
        if fast is not None and labels is None:
            return fast
        if fast is not None:  # y's own labels, then their places among ``labels``
            codes, seen = fast
            labels = list(labels)
            where = pd.Index(labels, dtype=object, tupleize_cols=False).get_indexer(seen)
            if (where < 0).any():
                raise _stray_label("y", seen[int(np.flatnonzero(where < 0)[0])], labels, remedy)
            return where[codes], labels
    what = "y" if getattr(y, "name", None) is None else f"y ({y.name!r})"
    values = pd.Series(_label_values(y, what), copy=False)
    if len(values) != n_rows:
        raise InputError(
            f"{what} has {len(values)} entries for {n_rows} rows of X; give one label per row."
        )
    check_labels_present(values, what)
    if labels is None:
        labels = _sorted_labels(pd.unique(values).tolist(), what)
    labels = list(labels)
    codes = pd.Index(labels, dtype=object, tupleize_cols=False).get_indexer(values.astype(object))
    if (codes < 0).any():
        raise _stray_label(what, values[codes < 0].iloc[0], labels, remedy)
    return np.asarray(codes, dtype=np.intp), labels


def _stray_label(what: str, stray, labels: list, remedy: str) -> InputError:
    """The error for the label ``stray`` of ``what``, outside the given ``labels``."""
    stray = stray.item() if isinstance(stray, np.generic) else stray
    return InputError(
        f"{what} has the label {stray!r}, which is not among the classes {labels[:10]!r}."
        + (f" {remedy}" if remedy else "")
    )


def check_labels(y, what: str = "y") -> None:
    """Raise an :class:`~bayesnb.errors.InputError` when ``y`` (labels as given; a
    column vector is read as its one column) has a missing label or labels of types
    that cannot be ordered together, before anything turns them into strings."""
    if getattr(y, "ndim", 1) == 2 and y.shape[1] == 1:
        y = np.asarray(y).ravel()
    values = _label_values(y, what)
    check_labels_present(values, what)
    if values.dtype.kind != "c":  # complex labels: left to the caller's own check
        _sorted_labels(pd.unique(values).tolist(), what)


def check_classes(classes) -> list:
    """The labels declared with ``classes=`` (some may be absent from ``y``), sorted,
    the order of every fit's labels: one label per entry, each once, none missing,
    of types that can be ordered together (an error naming ``classes`` otherwise)."""
    values = _label_values(classes, "classes")
    if not len(values):
        raise InputError(
            "classes is empty; give the full list of class labels, e.g. classes=['a', 'b']."
        )
    check_labels_present(values, "classes")
    labels = pd.unique(values).tolist()
    if len(labels) != len(values):
        twice = repeated(values.tolist())
        raise InputError(
            f"classes must list every class once; got {twice[:5]!r} more than once in "
            f"{values.tolist()[:10]!r}. List each class label once."
        )
    return _sorted_labels(labels, "classes")


def check_labels_present(values, what: str = "y") -> None:
    """Raise an :class:`~bayesnb.errors.InputError` naming the rows of ``values`` (a
    sequence of labels as given) whose label is missing (None, NaN, ``pd.NA``, NaT)."""
    missing = pd.isna(pd.Series(values, dtype=object, copy=False)).to_numpy()
    if missing.any():
        rows = np.flatnonzero(missing)
        raise InputError(
            f"{what} has {len(rows)} missing label(s) (None, NaN, NA or NaT), at row(s) "
            f"{rows[:5].tolist()}. Supervised fitting needs the class of every row: drop "
            "those rows, or keep them unlabelled in a semi-supervised mixture, "
            "model.cluster(X, n_components, y=y)."
        )


def _label_values(y, what: str) -> np.ndarray:
    """``y`` as a 1-D array whose entries are the labels as given: a sequence that
    NumPy would turn into strings (mixed strings and NaN or numbers) or spread over a
    second axis (tuples) becomes an object array instead. A string or a scalar is not
    a sequence of labels: it raises an :class:`~bayesnb.errors.InputTypeError`."""
    if isinstance(y, str | bytes | dict) or not (hasattr(y, "__len__") or hasattr(y, "__array__")):
        raise InputTypeError(
            f"{what} must hold one label per row (a list, array or Series); got "
            f"{type(y).__name__} {y!r:.60}. Pass e.g. y=df['label'] or y=list_of_labels."
        )
    if isinstance(y, pd.Series | pd.Index):
        values = y.to_numpy()
    elif isinstance(y, np.ndarray) or not isinstance(y, Sequence):  # array-likes
        values = np.asarray(y)
    else:
        items = list(y)
        try:
            values = np.asarray(items)
        except ValueError:  # ragged: tuples of different lengths
            values = None
        nested = any(isinstance(v, list | np.ndarray) for v in items)
        if (values is None or values.dtype.kind in "US" or values.ndim > 1) and not nested:
            values = value_array(items)
        elif values is None:
            raise InputError(
                f"{what} must be 1-D, one label per row; it holds lists of different "
                "lengths. Give one hashable label (str, number, tuple) per row."
            )
    if values.ndim != 1:
        raise InputError(
            f"{what} must be 1-D, one label per row; got an array of shape {values.shape}. "
            "Flatten a column vector with y.ravel()."
        )
    return values


def _sorted_labels(labels: list, what: str) -> list:
    """``labels`` sorted; an :class:`InputError` when their types cannot be ordered."""
    try:
        return sorted(labels)
    except TypeError:
        types = sorted({type(v).__name__ for v in labels})
        examples = [next(v for v in labels if type(v).__name__ == t) for t in types]
        holds = (
            f"mixes labels of the types {types}"
            if len(types) > 1
            else f"holds labels of the type {types[0]}"
        )
        raise InputError(
            f"{what} {holds} (e.g. {examples!r}), which cannot be ordered. Convert them to "
            "one orderable type, e.g. y.astype(str)."
        ) from None


def _integer_codes(y, n_rows: int):
    """``(codes, labels)`` of an integer array ``y`` over a modest range, without pandas.

    ``None`` when ``y`` is not such an array (the general path then handles it).
    """
    if not isinstance(y, np.ndarray | list | range):
        return None
    try:
        arr = np.asarray(y)
    except ValueError:  # ragged tuples
        return None
    if arr.ndim != 1 or arr.dtype.kind not in "iu" or len(arr) != n_rows or not len(arr):
        return None
    lo, hi = int(arr.min()), int(arr.max())
    if hi - lo > 2 * len(arr) + 1024 or hi > np.iinfo(np.intp).max:
        return None
    codes = np.empty(len(arr), dtype=np.intp)
    rank = _compiled.rank_codes(arr, lo, hi - lo + 1, codes)
    return codes, (np.flatnonzero(rank >= 0) + lo).tolist()


def class_labels(codes: np.ndarray, n_labels: int, sample_weight=None) -> Labels:
    """The class labels as responsibilities: ``codes`` with their validated weights."""
    return Labels(codes, n_labels, check_sample_weight(sample_weight, len(codes)))


def check_count(value, name: str, minimum: int = 1) -> int:
    """``value`` as an int >= ``minimum`` (a number of draws, chains, words...); an
    error naming ``name`` otherwise."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise InputTypeError(
            f"{name} must be an integer >= {minimum}; got {type(value).__name__} {value!r}."
        )
    if value < minimum:
        raise InputError(f"{name} must be an integer >= {minimum}; got {value!r}.")
    return int(value)


def check_sample_weight(sample_weight, n_rows: int):
    """``sample_weight`` as n_rows finite non-negative floats, not all zero (or None)."""
    if sample_weight is None:
        return None
    try:
        w = np.asarray(sample_weight, dtype=float)
    except (TypeError, ValueError):
        raise InputTypeError(
            f"sample_weight must be {n_rows} numbers, one per row; got "
            f"{type(sample_weight).__name__} {sample_weight!r:.80}."
        ) from None
    if isinstance(sample_weight, numbers.Number) or w.shape != (n_rows,):
        raise InputError(
            f"sample_weight must hold one weight per row of X, shape ({n_rows},); got shape "
            f"{w.shape}. Give an array of {n_rows} non-negative numbers."
        )
    bad = ~np.isfinite(w)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"sample_weight must be finite; got {float(w[row])!r} at row {row}"
            f" ({int(bad.sum())} such row(s)). Give every row a finite weight (0 leaves it out)."
        )
    if (w < 0).any():
        row = int(np.flatnonzero(w < 0)[0])
        raise InputError(
            f"sample_weight must be >= 0; got {float(w[row])!r} at row {row} ({int((w < 0).sum())} "
            "negative weight(s)). A weight counts a row that many times; use 0 to leave a "
            "row out."
        )
    if n_rows and not w.any():
        raise InputError(
            "sample_weight is zero for every row, so there is nothing to learn from; give at "
            "least one row a positive weight."
        )
    with np.errstate(over="ignore"):
        total = w.sum()
    if not np.isfinite(total):
        raise InputError(
            f"sample_weight sums beyond the largest float (about 1.8e308; the largest weight "
            f"is {float(w.max())!r}), so the weighted counts cannot be stored. Divide the "
            "weights by a common factor (a weight counts a row that many times, so this "
            "also weakens the data against the priors)."
        )
    return w
