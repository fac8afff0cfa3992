"""Saving and loading, probed: a frame's dtypes come back exactly (a string column's
storage and missing value, a pyarrow type, a categorical's categories' own dtype), so
drawn rows do too; a file whose dtypes miss a feature, whose density holds a
classifier's labels or whose tagged values are malformed is refused with a message
naming the entry; a model file written again by xarray (netCDF-4) loads; a save that
fails leaves the file it would replace as it was, and a read-only file is not replaced.

The oracle of every round trip is the saved fit itself."""

import os

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import bayesnb as bnb
from bayesnb.errors import InputError, ModelFileError
from tests.test_labels_dtypes_and_file_checks import _edit

pa = pytest.importorskip("pyarrow")

N = 30
_RNG = np.random.default_rng(7)
_WORDS = _RNG.choice(["p", "q", "r"], N)
_LEVELS = _RNG.choice([1, 2, 3], N)
_DAYS = _RNG.choice([1, 2], N)


# -- a frame's dtypes, exactly --------------------------------------------------------
DTYPED_COLUMNS = {
    "string-python": pd.array(_WORDS, dtype=pd.StringDtype("python")),
    "string-python-nan": pd.array(_WORDS, dtype=pd.StringDtype("python", na_value=np.nan)),
    "string-pyarrow": pd.array(_WORDS, dtype=pd.StringDtype("pyarrow")),
    "arrow-string": pd.array(_WORDS, dtype=pd.ArrowDtype(pa.string())),
    "arrow-int": pd.array(_LEVELS, dtype=pd.ArrowDtype(pa.int64())),
    "category-int8": pd.Categorical(_LEVELS.astype(np.int8)),
    "category-timedelta": pd.Categorical(pd.to_timedelta(_DAYS, unit="D").as_unit("us")),
    "category-unused-ordered": pd.Categorical(
        _WORDS, categories=["r", "q", "p", "never"], ordered=True
    ),
}


@pytest.mark.parametrize("column", list(DTYPED_COLUMNS))
def test_a_density_keeps_its_columns_dtype_through_a_file(tmp_path, column):
    frame = pd.DataFrame({column: DTYPED_COLUMNS[column]})
    fit = bnb.NaiveBayes().density(frame)
    fit.save(tmp_path / "d.nc")
    loaded = bnb.load(tmp_path / "d.nc")
    assert loaded.column_dtypes == fit.column_dtypes
    assert repr(loaded.column_dtypes) == repr(fit.column_dtypes)  # a string's storage too
    drawn, again = fit.sample(12, random_state=0), loaded.sample(12, random_state=0)
    assert drawn[column].dtype == frame[column].dtype  # the fit's own promise
    pd.testing.assert_frame_equal(again, drawn)
    np.testing.assert_array_equal(loaded.log_density(frame), fit.log_density(frame))


def test_a_classifier_on_every_odd_dtype_round_trips(tmp_path):
    frame = pd.DataFrame(DTYPED_COLUMNS)
    y = np.where(_LEVELS > 1, "hi", "lo")
    fit = bnb.NaiveBayes().fit(frame, y)
    fit.save(tmp_path / "c.nc")
    loaded = bnb.load(tmp_path / "c.nc")
    assert repr(loaded.column_dtypes) == repr(fit.column_dtypes)
    np.testing.assert_array_equal(loaded.predict_proba(frame), fit.predict_proba(frame))
    xr.testing.assert_identical(loaded.params, fit.params)


def test_a_file_of_the_old_dtype_form_still_loads(tmp_path):
    """A categorical saved without its categories' dtype, and a string column saved by
    name, read as they were written then."""
    frame = pd.DataFrame({"a": pd.Categorical(_LEVELS), "b": pd.array(_WORDS, dtype="string")})
    bnb.NaiveBayes().density(frame).save(tmp_path / "new.nc")

    def old_form(config):
        del config["column_dtypes"]["a"]["dtype"]
        config["column_dtypes"]["b"] = "string"

    _edit(tmp_path / "new.nc", tmp_path / "old.nc", config=old_form)
    loaded = bnb.load(tmp_path / "old.nc")
    assert loaded.column_dtypes["a"] == pd.CategoricalDtype([1, 2, 3])
    assert loaded.column_dtypes["b"] == pd.StringDtype()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"categories": 5, "ordered": False}, "its categories are no list"),
        ({"categories": ["a"], "ordered": "no"}, "'ordered' must be true or false"),
        (
            {"categories": ["a", "b"], "ordered": False, "dtype": "int64"},
            "does not hold its categories",
        ),
        ({"string": "rope", "na_value": "NA"}, "storage 'python' or 'pyarrow'"),
        ({"arrow": "no-such-type"}, "pyarrow does not know"),
        ([1], "pandas does not know"),
    ],
)
def test_load_names_a_damaged_column_dtype(tmp_path, spec, message):
    frame = pd.DataFrame({"a": pd.Categorical(["a", "b", "a"])})
    bnb.NaiveBayes().density(frame).save(tmp_path / "d.nc")
    _edit(
        tmp_path / "d.nc",
        tmp_path / "bad.nc",
        config=lambda c: c["column_dtypes"].update(a=spec),
    )
    with pytest.raises(ModelFileError, match=message) as info:
        bnb.load(tmp_path / "bad.nc")
    assert "'column_dtypes' gives column 'a'" in str(info.value)
    assert "save the model again" in str(info.value)


def test_load_refuses_column_dtypes_that_miss_a_feature(tmp_path):
    """Loading such a file once gave a fit whose sample() raised a bare KeyError."""
    tennis = bnb.datasets.play_tennis()
    bnb.NaiveBayes().density(tennis).save(tmp_path / "d.nc")
    _edit(
        tmp_path / "d.nc",
        tmp_path / "bad.nc",
        config=lambda c: c.update(column_dtypes={"elsewhere": "float64"}),
    )
    with pytest.raises(ModelFileError, match=r"'column_dtypes' must give .* every feature") as info:
        bnb.load(tmp_path / "bad.nc")
    assert "lacks ['outlook', 'temperature', 'humidity', 'wind', 'play']" in str(info.value)
    assert "['elsewhere']" in str(info.value)


# -- the kind of model a file says ----------------------------------------------------
def test_a_classifier_file_relabelled_as_a_density_is_refused(tmp_path):
    """It once loaded as a 'density' of two classes: log_density a mixture of the
    classes, params a bare xarray error."""
    tennis = bnb.datasets.play_tennis()
    bnb.NaiveBayes().fit(tennis, target="play").save(tmp_path / "c.nc")
    _edit(tmp_path / "c.nc", tmp_path / "bad.nc", config=lambda c: c.update(model="DensityFit"))
    with pytest.raises(ModelFileError, match=r"says DensityFit, but its 'labels' are \['No', "):
        bnb.load(tmp_path / "bad.nc")


def test_a_density_file_still_loads_as_a_density(tmp_path):
    tennis = bnb.datasets.play_tennis()
    fit = bnb.NaiveBayes().density(tennis)
    fit.save(tmp_path / "d.nc")
    loaded = bnb.load(tmp_path / "d.nc")
    assert type(loaded) is bnb.DensityFit
    np.testing.assert_array_equal(loaded.log_density(tennis), fit.log_density(tennis))


def test_a_malformed_list_value_is_named(tmp_path):
    tennis = bnb.datasets.play_tennis()
    bnb.NaiveBayes().fit(tennis, target="play").save(tmp_path / "c.nc")
    _edit(
        tmp_path / "c.nc",
        tmp_path / "bad.nc",
        config=lambda c: c.update(labels=[{"__list__": 5}, "Yes"]),
    )
    with pytest.raises(ModelFileError, match=r"labels: the value \{'__list__': 5\} cannot be"):
        bnb.load(tmp_path / "bad.nc")


# -- the file format ------------------------------------------------------------------
def test_a_model_file_written_again_by_xarray_loads(tmp_path):
    """xarray's default netCDF engine (h5netcdf, netCDF-4) writes an HDF5 file."""
    tennis = bnb.datasets.play_tennis()
    fit = bnb.NaiveBayes().fit(tennis, target="play")
    fit.save(tmp_path / "model.nc")
    with xr.open_dataset(tmp_path / "model.nc") as ds:
        ds.load().to_netcdf(tmp_path / "again.nc", engine="h5netcdf")
    with open(tmp_path / "again.nc", "rb") as file:
        assert file.read(4) == b"\x89HDF"
    loaded = bnb.load(tmp_path / "again.nc")
    np.testing.assert_array_equal(loaded.predict_proba(tennis), fit.predict_proba(tennis))
    xr.testing.assert_identical(loaded.params, fit.params)


def test_a_truncated_netcdf4_file_is_named(tmp_path):
    tennis = bnb.datasets.play_tennis()
    bnb.NaiveBayes().fit(tennis, target="play").save(tmp_path / "model.nc")
    with xr.open_dataset(tmp_path / "model.nc") as ds:
        ds.load().to_netcdf(tmp_path / "again.nc", engine="h5netcdf")
    data = (tmp_path / "again.nc").read_bytes()
    (tmp_path / "cut.nc").write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelFileError, match=r"cut.nc' is not a netCDF-4 file") as info:
        bnb.load(tmp_path / "cut.nc")
    assert "save the model again" in str(info.value)


@pytest.mark.parametrize("keep", [0.25, 0.5, 0.9])
def test_a_truncated_model_file_is_named(tmp_path, keep):
    tennis = bnb.datasets.play_tennis()
    bnb.NaiveBayes().fit(tennis, target="play").save(tmp_path / "model.nc")
    data = (tmp_path / "model.nc").read_bytes()
    (tmp_path / "cut.nc").write_bytes(data[: int(len(data) * keep)])
    with pytest.raises(ModelFileError, match=r"cut.nc' is not a netCDF-3 file") as info:
        bnb.load(tmp_path / "cut.nc")
    assert "cut short or damaged: save the model again" in str(info.value)


# -- saving over a file ---------------------------------------------------------------
def test_a_save_that_fails_leaves_the_old_file_as_it_was(tmp_path, monkeypatch):
    tennis = bnb.datasets.play_tennis()
    old = bnb.NaiveBayes().fit(tennis, target="play")
    old.save(tmp_path / "model.nc")
    before = (tmp_path / "model.nc").read_bytes()

    def half_written(self, path, **kwargs):
        with open(path, "wb") as file:
            file.write(b"CDF\x01 cut short")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(xr.Dataset, "to_netcdf", half_written)
    new = bnb.NaiveBayes().fit(tennis.head(9), target="play")
    with pytest.raises(InputError, match=r"cannot write path .*model.nc' \(No space left"):
        new.save(tmp_path / "model.nc")
    monkeypatch.undo()
    assert (tmp_path / "model.nc").read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["model.nc"]  # no temporary file left
    loaded = bnb.load(tmp_path / "model.nc")
    np.testing.assert_array_equal(loaded.predict_proba(tennis), old.predict_proba(tennis))


def test_saving_replaces_a_file_and_keeps_its_mode(tmp_path):
    tennis = bnb.datasets.play_tennis()
    bnb.NaiveBayes().fit(tennis.head(9), target="play").save(tmp_path / "model.nc")
    os.chmod(tmp_path / "model.nc", 0o640)
    fit = bnb.NaiveBayes().fit(tennis, target="play")
    fit.save(tmp_path / "model.nc")
    assert os.stat(tmp_path / "model.nc").st_mode & 0o777 == 0o640
    loaded = bnb.load(tmp_path / "model.nc")
    np.testing.assert_array_equal(loaded.predict_proba(tennis), fit.predict_proba(tennis))
    assert sorted(os.listdir(tmp_path)) == ["model.nc"]


def test_a_new_file_gets_the_mode_of_the_umask(tmp_path):
    mask = os.umask(0o022)
    try:
        bnb.NaiveBayes().fit(bnb.datasets.play_tennis(), target="play").save(tmp_path / "m")
    finally:
        os.umask(mask)
    assert os.stat(tmp_path / "m").st_mode & 0o777 == 0o644  # not a temporary file's 0600


def test_saving_writes_through_a_link(tmp_path):
    tennis = bnb.datasets.play_tennis()
    fit = bnb.NaiveBayes().fit(tennis, target="play")
    (tmp_path / "models").mkdir()
    os.symlink(tmp_path / "models" / "real.nc", tmp_path / "link.nc")
    fit.save(tmp_path / "link.nc")
    assert os.path.islink(tmp_path / "link.nc")
    loaded = bnb.load(tmp_path / "models" / "real.nc")
    np.testing.assert_array_equal(loaded.predict_proba(tennis), fit.predict_proba(tennis))


def test_a_read_only_file_is_not_replaced(tmp_path, monkeypatch):
    tennis = bnb.datasets.play_tennis()
    bnb.NaiveBayes().fit(tennis, target="play").save(tmp_path / "model.nc")
    before = (tmp_path / "model.nc").read_bytes()
    real_access = os.access
    # (the tests may run as root, for whom every file is writable)
    monkeypatch.setattr(
        os,
        "access",
        lambda p, mode, **k: False if str(p).endswith("model.nc") else real_access(p, mode, **k),
    )
    with pytest.raises(InputError, match=r"model.nc' is read-only, so it is not replaced"):
        bnb.NaiveBayes().fit(tennis.head(9), target="play").save(tmp_path / "model.nc")
    assert (tmp_path / "model.nc").read_bytes() == before


def test_a_path_without_a_suffix_is_used_as_given(tmp_path):
    tennis = bnb.datasets.play_tennis()
    fit = bnb.NaiveBayes().fit(tennis, target="play")
    fit.save(tmp_path / "model")
    assert sorted(os.listdir(tmp_path)) == ["model"]
    np.testing.assert_array_equal(
        bnb.load(tmp_path / "model").predict_proba(tennis), fit.predict_proba(tennis)
    )
