"""Extra-P 4.2.5's default modeler on a text file, evaluated at points: run with Debian's
/usr/bin/python3 and PYTHONPATH=EXTRAP:EXTRAP/_stubs. Usage: extrap_model.py FILE 'p,n;p,n'
Prints JSON {"region/metric": [value at each point]}."""
import json
import sys
import warnings

warnings.filterwarnings("ignore")
from extrap.fileio.file_reader.text_file_reader import TextFileReader  # noqa: E402
from extrap.modelers.model_generator import ModelGenerator  # noqa: E402

exp = TextFileReader().read_experiment(sys.argv[1])
points = [[float(v) for v in pt.split(",")] for pt in sys.argv[2].split(";")]
mg = ModelGenerator(exp)
mg.model_all()
out = {}
for (callpath, metric), model in mg.models.items():
    f = model.hypothesis.function
    vals = []
    for pt in points:
        v = f.evaluate(pt[0] if len(pt) == 1 else pt)
        vals.append(float(v))
    out["%s/%s" % (callpath.name, metric.name)] = vals
print(json.dumps(out))
