# Logistic regression, PyTensor style
# webtensor.symbolic builds a graph from symbolic variables, as pytensor.tensor does: at.grad
# differentiates it, and at.function compiles the forward pass, the gradients and the updates
# of the shared weights into one program (fused kernels on the GPU). Each train(...) call
# changes the weights.
import webtensor as wt
import webtensor.symbolic as at

at.config.floatX = "float32"  # Python floats become float32 constants: the graph stays float32

# the data: two Gaussian clouds, labels 0 and 1
n = 200
key_a, key_b = wt.random.split(wt.random.key(0))
labels = wt.astype(wt.arange(n) % 2, wt.float32)
centres = wt.stack([2.0 * labels - 1.0, 1.0 - 2.0 * labels], axis=1)
points = 1.2 * centres + wt.random.normal(key_a, (n, 2))

# the model: symbolic inputs, shared weights, a cost
x = at.fmatrix("x")
y = at.fvector("y")
w = at.shared(wt.zeros(2), name="w")
b = at.shared(wt.zeros(()), name="b")
p_1 = at.sigmoid(at.dot(x, w) + b)  # probability of class 1
xent = -y * at.log(p_1) - (1 - y) * at.log(1 - p_1)
cost = xent.mean() + 0.01 * (w ** 2).sum()
gw, gb = at.grad(cost, [w, b])

train = at.function([x, y], cost, updates=[(w, w - 0.5 * gw), (b, b - 0.5 * gb)])
predict = at.function([x], p_1 > 0.5)
probability = at.function([x], p_1)
print("p_1 =", at.pp(p_1))
print("cost:", cost.type, "  gradient of w:", gw.type)

# the picture: the probability of class 1 over the plane, the data on top
side = 48
ys, xs = wt.meshgrid(wt.linspace(3.5, -3.5, side), wt.linspace(-3.5, 3.5, side), indexing="ij")
grid = wt.stack([wt.reshape(xs, (-1,)), wt.reshape(ys, (-1,))], axis=1)
cell = wt.astype(wt.clip(wt.round((points + 3.5) / 7.0 * (side - 1)), 0, side - 1), wt.int32)
dots = wt.zeros((side, side))
dots[side - 1 - cell[:, 1], cell[:, 0]] = 2 * labels - 1

costs = []
for step in range(101):
    costs.append(train(points, labels).item())
    if step % 20 == 0:
        wt.show(wt.asarray(costs), title="cost", figure="cost")
        image = wt.reshape(probability(grid), (side, side))
        wt.show(wt.where(dots != 0, 0.5 + 0.5 * dots, 0.2 + 0.6 * image),
                title=f"P(class 1) after {step} steps (data: 0 and 1)", figure="regions")

accuracy = wt.mean(wt.astype(predict(points) == (labels > 0.5), wt.float32))
print(f"w = {w.get_value().tolist()}, b = {b.get_value().item():.3f}")
print(f"training accuracy: {accuracy.item():.1%}")
