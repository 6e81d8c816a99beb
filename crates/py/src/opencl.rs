//! `warpkit.compile`: OpenCL C to a `Program` through `warpkit-cc` and the assembler
//! (`warpkit_host::compile_opencl`, what `warpkit run k.cl` and `warpkit cc` use), and the
//! compiler's options and errors as Python sees them.

use super::{load_error, CompileError, Diagnostic, Program};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::path::PathBuf;

/// Compile OpenCL C: `source_or_path` is source text when it is a `str` holding a newline
/// or a `{` (every kernel has a body), otherwise the path of a file (any `os.PathLike` is a
/// path). Returns a `Program` launched as assembled ones are; raises `CompileError` with the
/// compiler's diagnostics.
#[pyfunction]
#[pyo3(signature = (source_or_path, *, defines = None, undefines = None, include_dirs = None,
    options = None, kernel = None, filename = None))]
#[allow(clippy::too_many_arguments)]
pub fn compile(
    py: Python<'_>,
    source_or_path: &Bound<'_, PyAny>,
    defines: Option<&Bound<'_, PyAny>>,
    undefines: Option<Vec<String>>,
    include_dirs: Option<Vec<PathBuf>>,
    options: Option<&str>,
    kernel: Option<String>,
    filename: Option<String>,
) -> PyResult<Program> {
    let cl = self::options(defines, undefines, include_dirs, options)?;
    let (bytes, name) = match source(source_or_path)? {
        Source::Text(text) => (
            text.into_bytes(),
            filename.unwrap_or_else(|| "<string>".to_string()),
        ),
        Source::Path(path) => {
            if filename.is_some() {
                return Err(PyValueError::new_err(
                    "filename= names source text; a file is named by its path",
                ));
            }
            let bytes = warpkit_host::read_kernel_file(&path).map_err(|e| match e {
                warpkit_host::LoadError::Read { .. } => PyValueError::new_err(format!(
                    "{e} (a str without a newline or a `{{` is taken as a path)"
                )),
                e => load_error(py, e),
            })?;
            (bytes, path.display().to_string())
        }
    };
    let inner = warpkit_host::compile_opencl(&bytes, &name, &cl).map_err(|e| load_error(py, e))?;
    Program::chosen(inner, kernel)
}

enum Source {
    Text(String),
    Path(PathBuf),
}

fn source(v: &Bound<'_, PyAny>) -> PyResult<Source> {
    if let Ok(text) = v.extract::<String>() {
        return Ok(if text.contains(['\n', '{']) {
            Source::Text(text)
        } else {
            Source::Path(PathBuf::from(text))
        });
    }
    v.extract::<PathBuf>().map(Source::Path).map_err(|_| {
        PyTypeError::new_err(format!(
            "compile takes OpenCL C source (str) or a path (str or os.PathLike), not {}",
            v.get_type()
                .name()
                .map_or_else(|_| "?".into(), |n| n.to_string())
        ))
    })
}

/// The compiler's options: `defines` (a dict NAME -> value or None, or a list of `NAME`,
/// `NAME=VALUE` or `(NAME, VALUE)`), `undefines`, `include_dirs`, then the OpenCL build
/// options string `options` (`"-cl-mad-enable -O0 -DN=4"`), in the order `warpkit cc`
/// applies its `-D`, `-U`, `-I` and `--cl-options`.
pub fn options(
    defines: Option<&Bound<'_, PyAny>>,
    undefines: Option<Vec<String>>,
    include_dirs: Option<Vec<PathBuf>>,
    options: Option<&str>,
) -> PyResult<warpkit_cc::Options> {
    let mut o = warpkit_cc::Options::default();
    if let Some(d) = defines {
        o.defines = define_list(d)?;
    }
    o.undefines = undefines.unwrap_or_default();
    o.include_dirs = include_dirs.unwrap_or_default();
    if let Some(text) = options {
        o.apply_flags(text)
            .map_err(|e| PyValueError::new_err(format!("options {text:?}: {e}")))?;
    }
    Ok(o)
}

fn define_list(d: &Bound<'_, PyAny>) -> PyResult<Vec<(String, Option<String>)>> {
    let mut out = Vec::new();
    if let Ok(dict) = d.cast::<PyDict>() {
        for (k, v) in dict.iter() {
            let name: String = k
                .extract()
                .map_err(|_| PyTypeError::new_err("defines: macro names must be str"))?;
            out.push((name, define_value(&v)?));
        }
        return Ok(out);
    }
    if d.extract::<String>().is_ok() {
        return Err(PyTypeError::new_err(
            "defines: expected a dict or a list of NAME, NAME=VALUE or (NAME, VALUE), not a str",
        ));
    }
    for item in d.try_iter().map_err(|_| {
        PyTypeError::new_err(
            "defines: expected a dict or a list of NAME, NAME=VALUE or (NAME, VALUE)",
        )
    })? {
        let item = item?;
        if let Ok(text) = item.extract::<String>() {
            out.push(match text.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (text, None),
            });
        } else if let Ok(pair) = item.cast::<PyTuple>() {
            if pair.len() != 2 {
                return Err(PyTypeError::new_err("defines: a tuple is (NAME, VALUE)"));
            }
            let name: String = pair
                .get_item(0)?
                .extract()
                .map_err(|_| PyTypeError::new_err("defines: macro names must be str"))?;
            out.push((name, define_value(&pair.get_item(1)?)?));
        } else {
            return Err(PyTypeError::new_err(format!(
                "defines: expected NAME, NAME=VALUE or (NAME, VALUE), not {}",
                item.get_type().name()?
            )));
        }
    }
    Ok(out)
}

/// A macro's replacement text: a `str` as written, `None` for none (the macro is `1`), a
/// bool as 1 or 0, another number as Python writes it (`0.5`, `1e-10`, `-3`).
fn define_value(v: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    if v.is_none() {
        return Ok(None);
    }
    if let Ok(text) = v.extract::<String>() {
        return Ok(Some(text));
    }
    if let Ok(b) = v.cast::<pyo3::types::PyBool>() {
        return Ok(Some(if b.is_true() { "1" } else { "0" }.to_string()));
    }
    if v.is_instance_of::<pyo3::types::PyInt>() || v.is_instance_of::<pyo3::types::PyFloat>() {
        return Ok(Some(v.str()?.to_string()));
    }
    Err(PyTypeError::new_err(format!(
        "defines: a macro's value is a str, an int, a float or None, not {}",
        v.get_type().name()?
    )))
}

/// `CompileError` with the compiler's rendered diagnostics and their list.
pub fn compile_error(
    py: Python<'_>,
    rendered: &str,
    diagnostics: &[warpkit_host::CompileDiagnostic],
) -> PyErr {
    let err = CompileError::new_err(rendered.trim_end().to_string());
    let built = (|| -> PyResult<()> {
        let value = err.value(py);
        let list = PyList::empty(py);
        for d in diagnostics {
            let d = Diagnostic {
                severity: if d.warning { "warning" } else { "error" },
                file: d.file.clone(),
                line: d.line,
                col: d.column,
                text: d.message.clone(),
            };
            list.append(Py::new(py, d)?)?;
        }
        if let Some(first) = diagnostics.iter().find(|d| !d.warning) {
            value.setattr("file", &first.file)?;
            value.setattr("line", first.line)?;
            value.setattr("col", first.column)?;
            value.setattr("text", &first.message)?;
        }
        value.setattr("diagnostics", list)?;
        Ok(())
    })();
    match built {
        Ok(()) => err,
        Err(e) => e,
    }
}
