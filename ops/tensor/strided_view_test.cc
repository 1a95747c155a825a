// Each view of ops/tensor/strided_view against ATen's op on random tensors (some
// non-contiguous, some with a storage offset) and random arguments, some out
// of range: where ours gives a view, ATen's succeeds with the same sizes,
// strides, storage offset and storage; where ATen fails, ours gives nullopt
// or ATen's error.
#include "ops/tensor/strided_view.h"

#include <functional>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "c10/core/InferenceMode.h"
#include "gtest/gtest.h"
#include "ops/core/out_variant_test_support.h"
#include "rapidcheck.h"

namespace static_runtime {
namespace {

using testing::Draw;
using View = std::function<std::optional<at::Tensor>(const at::Tensor&)>;
using Reference = std::function<at::Tensor(const at::Tensor&)>;

struct Case {
  std::string name;
  // Draws the arguments; returns ours and ATen's view of a tensor.
  std::function<std::pair<View, Reference>(Draw&, const at::Tensor&)> draw;
};

int64_t AnyDim(Draw& d, int64_t rank) { return d.Int(-rank - 1, rank); }  // sometimes wrong
std::vector<int64_t> Ints(Draw& d, size_t count, int64_t low, int64_t high) {
  std::vector<int64_t> values;
  for (size_t i = 0; i < count; ++i) values.push_back(d.Int(low, high));
  return values;
}

std::vector<Case> Cases() {
  return {
      {"slice",
       [](Draw& d, const at::Tensor& t) {
         const int64_t dim = AnyDim(d, t.dim());
         auto bound = [&]() {
           return d.Bool() ? c10::nullopt : c10::optional<int64_t>(d.Int(-6, 6));
         };
         const c10::optional<int64_t> start = bound(), end = bound();
         const int64_t step = d.Int(0, 3);
         return std::make_pair(
             View([=](const at::Tensor& x) { return SliceView(x, dim, start, end, step); }),
             Reference([=](const at::Tensor& x) { return x.slice(dim, start, end, step); }));
       }},
      {"narrow",
       [](Draw& d, const at::Tensor& t) {
         const int64_t dim = AnyDim(d, t.dim()), start = d.Int(-5, 5), length = d.Int(-1, 5);
         return std::make_pair(
             View([=](const at::Tensor& x) { return NarrowView(x, dim, start, length); }),
             Reference([=](const at::Tensor& x) { return x.narrow(dim, start, length); }));
       }},
      {"select",
       [](Draw& d, const at::Tensor& t) {
         const int64_t dim = AnyDim(d, t.dim()), index = d.Int(-5, 5);
         return std::make_pair(
             View([=](const at::Tensor& x) { return SelectView(x, dim, index); }),
             Reference([=](const at::Tensor& x) { return x.select(dim, index); }));
       }},
      {"transpose",
       [](Draw& d, const at::Tensor& t) {
         const int64_t a = AnyDim(d, t.dim()), b = AnyDim(d, t.dim());
         return std::make_pair(View([=](const at::Tensor& x) { return TransposeView(x, a, b); }),
                               Reference([=](const at::Tensor& x) { return x.transpose(a, b); }));
       }},
      {"t",
       [](Draw&, const at::Tensor&) {
         return std::make_pair(View([](const at::Tensor& x) { return TView(x); }),
                               Reference([](const at::Tensor& x) { return x.t(); }));
       }},
      {"permute",
       [](Draw& d, const at::Tensor& t) {
         std::vector<int64_t> dims =
             Ints(d, t.dim() + (d.Int(0, 4) == 0 ? 1 : 0), -t.dim(), t.dim() - 1);
         if (d.Int(0, 3) > 0) {  // usually a permutation
           dims.resize(t.dim());
           for (int64_t i = 0; i < t.dim(); ++i) dims[i] = i - (d.Bool() ? t.dim() : 0);
           for (int64_t i = t.dim() - 1; i > 0; --i) std::swap(dims[i], dims[d.Int(0, i)]);
         }
         return std::make_pair(View([=](const at::Tensor& x) { return PermuteView(x, dims); }),
                               Reference([=](const at::Tensor& x) { return x.permute(dims); }));
       }},
      {"unsqueeze",
       [](Draw& d, const at::Tensor& t) {
         const int64_t dim = d.Int(-t.dim() - 2, t.dim() + 1);
         return std::make_pair(View([=](const at::Tensor& x) { return UnsqueezeView(x, dim); }),
                               Reference([=](const at::Tensor& x) { return x.unsqueeze(dim); }));
       }},
      {"squeeze",
       [](Draw&, const at::Tensor&) {
         return std::make_pair(View([](const at::Tensor& x) { return SqueezeView(x); }),
                               Reference([](const at::Tensor& x) { return x.squeeze(); }));
       }},
      {"squeeze.dim",
       [](Draw& d, const at::Tensor& t) {
         const int64_t dim = AnyDim(d, t.dim());
         return std::make_pair(View([=](const at::Tensor& x) { return SqueezeDimView(x, dim); }),
                               Reference([=](const at::Tensor& x) { return x.squeeze(dim); }));
       }},
      {"expand",
       [](Draw& d, const at::Tensor& t) {
         std::vector<int64_t> size =
             Ints(d, t.dim() + d.Int(-1, 2) < 0 ? 0 : t.dim() + d.Int(0, 2), -2, 3);
         const int64_t extra = static_cast<int64_t>(size.size()) - t.dim();
         for (int64_t i = 0; i < t.dim() && extra >= 0; ++i) {
           if (d.Int(0, 3) > 0) size[extra + i] = d.Bool() ? -1 : t.size(i);  // usually valid
         }
         return std::make_pair(View([=](const at::Tensor& x) { return ExpandView(x, size); }),
                               Reference([=](const at::Tensor& x) { return x.expand(size); }));
       }},
      {"view",
       [](Draw& d, const at::Tensor& t) {
         std::vector<int64_t> size = t.sizes().vec();
         if (d.Bool()) size = {t.numel()};
         if (!size.empty() && d.Bool()) size[d.Int(0, size.size() - 1)] = -1;
         if (d.Int(0, 5) == 0) size.push_back(d.Int(0, 2));  // sometimes the wrong count
         return std::make_pair(View([=](const at::Tensor& x) { return ReshapeView(x, size); }),
                               Reference([=](const at::Tensor& x) { return x.view(size); }));
       }},
      {"flatten",
       [](Draw& d, const at::Tensor& t) {
         const int64_t start = AnyDim(d, t.dim()), end = AnyDim(d, t.dim());
         return std::make_pair(
             View([=](const at::Tensor& x) { return FlattenView(x, start, end); }),
             Reference([=](const at::Tensor& x) { return x.flatten(start, end); }));
       }},
  };
}

// A caller's tensor of rank 0-4 with dims 0-3, sometimes transposed, with a
// storage offset, or expanded (a zero stride).
at::Tensor AnyTensor(Draw& d) {
  at::Tensor t = d.Tensor(d.Shape(d.Int(0, 4), d.Bool() ? 0 : 1, 3), at::kFloat);
  if (t.dim() >= 2 && d.Bool()) t = t.transpose(0, t.dim() - 1);
  if (t.dim() >= 1 && t.size(0) > 1 && d.Bool()) t = t.narrow(0, 1, t.size(0) - 1);
  if (d.Int(0, 3) == 0) {
    std::vector<int64_t> sizes = t.sizes().vec();
    sizes.insert(sizes.begin(), 2);
    t = t.unsqueeze(0).expand(sizes);
  }
  return t;
}

// ATen's message (c10::Error's without the backtrace; some view errors are
// std::runtime_error).
std::string Message(const std::exception& e) {
  const auto* error = dynamic_cast<const c10::Error*>(&e);
  return error != nullptr ? error->what_without_backtrace() : e.what();
}

class StridedViewTest : public ::testing::TestWithParam<Case> {};

TEST_P(StridedViewTest, SameGeometryAsAten) {
  const Case& op = GetParam();
  int made = 0;
  const bool ok = rc::check(op.name, [&] {
    Draw d;
    const at::Tensor self = AnyTensor(d);
    const auto [ours, reference] = op.draw(d, self);
    c10::InferenceMode guard;
    std::string aten_error;
    at::Tensor expected;
    try {
      expected = reference(self);
    } catch (const std::exception& e) {
      aten_error = Message(e);
    }
    std::optional<at::Tensor> actual;
    try {
      actual = ours(self);
    } catch (const std::exception& e) {
      RC_ASSERT(Message(e) == aten_error);
      return;
    }
    if (!actual) return;  // left to ATen
    RC_ASSERT(aten_error.empty());
    ++made;
    RC_ASSERT(actual->sizes().vec() == expected.sizes().vec());
    RC_ASSERT(actual->strides().vec() == expected.strides().vec());
    RC_ASSERT(actual->storage_offset() == expected.storage_offset());
    RC_ASSERT(actual->storage().is_alias_of(self.storage()));
    RC_ASSERT(actual->is_contiguous() == expected.is_contiguous());
    // A new inference tensor, or (flatten of one dim) `self` itself, as ATen.
    const bool same = expected.unsafeGetTensorImpl() == self.unsafeGetTensorImpl();
    RC_ASSERT((actual->unsafeGetTensorImpl() == self.unsafeGetTensorImpl()) == same);
    RC_ASSERT(same || actual->is_inference());
  });
  EXPECT_TRUE(ok);
  EXPECT_GT(made, 0) << "no case took the fast path";
}

INSTANTIATE_TEST_SUITE_P(Views, StridedViewTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name = info.param.name;
                           for (char& c : name) {
                             if (c == '.') c = '_';
                           }
                           return name;
                         });

TEST(StridedViewOkTest, OnlyWhereTheViewCannotBeToldApart) {
  const at::Tensor caller = at::rand({2, 3});
  at::Tensor inference;
  {
    c10::InferenceMode guard;
    inference = at::rand({2, 3});
  }
  EXPECT_FALSE(StridedViewOk(inference, true)) << "outside inference mode";
  c10::InferenceMode guard;
  EXPECT_TRUE(StridedViewOk(inference, false));
  EXPECT_TRUE(StridedViewOk(caller, true));
  EXPECT_FALSE(StridedViewOk(caller, false)) << "the caller could see it";
  EXPECT_FALSE(StridedViewOk(at::Tensor(), true));
  EXPECT_FALSE(StridedViewOk(at::quantize_per_tensor(caller, 0.1, 0, at::kQUInt8), true));
  EXPECT_FALSE(StridedViewOk(at::rand({2}, at::kComplexFloat).conj(), true));
  EXPECT_FALSE(StridedViewOk(caller.to_sparse(), true));
}

}  // namespace
}  // namespace static_runtime
